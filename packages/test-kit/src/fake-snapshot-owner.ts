import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isServiceCaller, verifyInternalToken } from '@svc/service-kit';

/**
 * An owner service's internal snapshot route (`/internal/<things>/:id`, ADR 0010 read-through),
 * answered from `entities`; 404 for an unknown id and for a token that is not a service's own.
 * `stop()` closes it, so the next call finds the owner unreachable.
 */
export interface FakeSnapshotOwner {
  url: string;
  entities: Map<string, { version: number; entity: Record<string, unknown> }>;
  /** The services (token platformId) that asked, in order. */
  callers: string[];
  stop(): Promise<void>;
}

/** Starts the fake on a loopback port for `route` (e.g. INTERNAL_BOX_PATH), checking tokens with `secret`. */
export async function startFakeSnapshotOwner(secret: string, route: string): Promise<FakeSnapshotOwner> {
  const prefix = route.replace(':id', '');
  const fake: FakeSnapshotOwner = { url: '', entities: new Map(), callers: [], stop: async () => undefined };
  const server: Server = createServer((req, res) => {
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const notFound = () => answer(404, { error: { code: 'NOT_FOUND', message: 'not found' } });
    let claims;
    try {
      claims = verifyInternalToken(secret, (req.headers.authorization ?? '').replace(/^Bearer /, ''));
    } catch {
      answer(401, { error: { code: 'UNAUTHORIZED', message: 'no valid internal token' } });
      return;
    }
    const url = req.url ?? '';
    if (req.method !== 'GET' || !url.startsWith(prefix) || !isServiceCaller(claims)) return notFound();
    fake.callers.push(claims.platformId);
    const found = fake.entities.get(decodeURIComponent(url.slice(prefix.length)));
    if (found === undefined) return notFound();
    answer(200, { data: found });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
