import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  fromBase64,
  leafHashOf,
  toBase64,
  verifyConsistencyProof,
  verifyInclusionProof,
  verifyLicenseCredential,
  verifyStatusList,
  verifyTreeHead,
  type JWKS,
  type TreeHead,
} from '../../src';

// The proof operations' examples in the OpenAPI document (docs/spec/contracts.md §16) are one coherent set: a
// reader who copies them into the SDK's checks sees every check pass, as with a real deployment.
const doc = JSON.parse(readFileSync(path.join(__dirname, '../../openapi.json'), 'utf8'));

function example(route: string, mediaType = 'application/json'): any {
  return doc.paths[route].get.responses['200'].content[mediaType].example;
}

const keys = example('/.well-known/jwks.json') as JWKS;
const head = example('/v1/svc/transparency/tree-head').data as TreeHead;
// The status list example was signed at 12:00 and is valid for ten minutes.
const now = new Date('2026-11-29T12:05:00Z');

describe("the OpenAPI document's proof examples", () => {
  it('when the credential example is checked against the key set and status list examples, then it verifies and is not revoked', async () => {
    const { credential } = example('/v1/svc/licenses/{id}/credential').data;
    const statusList = example('/v1/svc/status-lists/{id}', 'application/statuslist+jwt');
    const verified = await verifyLicenseCredential(credential, { keys, statusList, now });
    expect(verified.license).toMatchObject({
      id: 'lic_9hQ2mXc4Tz7LpW1nB8vK3d',
      identityName: 'Ada Lovelace',
    });
    const list = await verifyStatusList(statusList, { keys, now });
    expect([list.statusOf(verified.status.idx), list.statusOf(7)]).toEqual([0, 1]);
  });

  it('when the log examples are checked, then the head is signed by the key set, the entry hashes to its leaf and both proofs lead to the signed root', async () => {
    expect(await verifyTreeHead(head, keys)).toBe(true);
    const entry = example('/v1/svc/transparency/entries/{index}').data;
    expect(toBase64(await leafHashOf(new TextEncoder().encode(entry.entry)))).toBe(entry.leafHash);
    const inclusion = example('/v1/svc/transparency/proofs/inclusion').data;
    expect(inclusion).toMatchObject({ leafIndex: entry.index, treeSize: head.treeSize });
    expect(
      await verifyInclusionProof({
        leafHash: fromBase64(entry.leafHash),
        index: inclusion.leafIndex,
        treeSize: inclusion.treeSize,
        proof: inclusion.auditPath.map(fromBase64),
        rootHash: fromBase64(head.rootHash),
      }),
    ).toBe(true);
    const consistency = example('/v1/svc/transparency/proofs/consistency').data;
    expect(consistency.second).toBe(head.treeSize);
    // The consistency example proves the log's first four entries (the root a monitor kept from
    // the head of size 4) whole in the signed tree of seven; another first root fails it.
    const proof = {
      first: consistency.first,
      second: consistency.second,
      proof: consistency.proof.map(fromBase64),
      firstRoot: fromBase64('4VXYinV8MeAvZj0+v8Gt1D/kk/UeIQCO0ZbXewcjvaI='),
      secondRoot: fromBase64(head.rootHash),
    };
    expect(await verifyConsistencyProof(proof)).toBe(true);
    expect(await verifyConsistencyProof({ ...proof, firstRoot: new Uint8Array(32) })).toBe(false);
  });
});
