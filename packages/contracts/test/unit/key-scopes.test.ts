import { allOperations, publicOpenApiDocument } from '@svc/contracts';
import { CHECK_OPERATION_IDS, scopeAllows, scopesAllowing } from '@svc/contracts/gateway';

type Json = Record<string, Record<string, { operationId: string; 'x-key-scopes'?: string[] }>>;

describe('key scopes (#32)', () => {
  const keyOperations = allOperations.filter(
    (op) => (op.auth ?? (op.path.startsWith('/admin') ? 'operator' : 'key')) === 'key',
  );

  it('when a check-only key is issued, then the operations it reaches are the identity checks of both families and a check’s status, all of them real', () => {
    const reached = keyOperations
      .filter((op) => scopeAllows('check_only', op))
      .map((op) => `${op.method} ${op.path}`);
    expect(reached.sort()).toEqual([
      'get /identity/status/:id',
      'post /identity/check',
      'post /identity/check/batch',
      'post /v1/svc/identity/check',
      'post /v1/svc/identity/check/batch',
    ]);
    expect(reached).toHaveLength(CHECK_OPERATION_IDS.size);
  });

  it('when a read-only key is issued, then it reaches every GET and no write', () => {
    for (const op of keyOperations) {
      expect({ id: op.id, allowed: scopeAllows('read_only', op) }).toEqual({
        id: op.id,
        allowed: op.method === 'get',
      });
    }
    expect(keyOperations.some((op) => op.method === 'get')).toBe(true);
  });

  it('when a developer reads the reference, then each key operation lists the scopes that reach it', () => {
    const paths = (publicOpenApiDocument() as { paths: Json }).paths;
    const listed = Object.values(paths).flatMap((item) => Object.values(item));
    const byId = new Map(listed.map((op) => [op.operationId, op['x-key-scopes']]));
    for (const op of keyOperations) {
      if (!byId.has(op.id)) continue; // an operation the public document leaves out
      expect({ id: op.id, scopes: byId.get(op.id) }).toEqual({ id: op.id, scopes: scopesAllowing(op) });
    }
    expect(byId.get('checkIdentity')).toEqual(['full', 'check_only']);
    expect(byId.get('createBox')).toEqual(['full']);
  });
});
