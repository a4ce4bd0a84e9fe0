import { startTestCluster, waitFor, type TestCluster } from '@svc/test-kit';
import {
  checkTransparencyLog,
  fromBase64,
  leafHashOf,
  toBase64,
  unwrap,
  verifyInclusionProof,
  verifyTreeHead,
  type SvcClient,
} from '@svc/sdk';
import { boxedIdentity, activeLicense } from './licensing-fixtures';
import { expectStatus, newPlatformKey, ROOT, sdkFor } from './helpers';

// Contracts §16 across services on RabbitMQ (cluster mode): every decision is appended to
// licensing's transparency log, and the resource it concerns (a box in registry, a license in
// licensing, a violation and an appeal in enforcement) then carries `logEntry: {index, leafHash}`.
// A party reads the entry; anyone proves it is in the signed log with the SDK alone.
let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster({
    rootDir: ROOT,
    services: ['registry', 'detection', 'licensing', 'enforcement', 'billing'],
    output: 'silent',
  });
}, 90_000);

afterAll(async () => {
  await cluster?.teardown();
});

async function newClient(name: string): Promise<SvcClient> {
  return sdkFor(cluster.gatewayUrl, await newPlatformKey(cluster, name));
}

interface LogEntry {
  index: number;
  leafHash: string;
}

/** Waits until `read` answers a resource carrying a `logEntry` that satisfies `ready`. */
function logged(
  what: string,
  read: () => Promise<{ logEntry?: LogEntry } | undefined>,
  ready: (entry: LogEntry) => boolean = () => true,
): Promise<LogEntry> {
  return waitFor(
    async () => {
      const entry = (await read())?.logEntry;
      return entry !== undefined && ready(entry) ? entry : undefined;
    },
    { what: `${what}'s logEntry`, timeoutMs: 20_000 },
  );
}

/**
 * What a party and a third party each check: the party reads the entry, whose bytes hash to the
 * resource's leaf hash; anyone verifies the signed tree head and the entry's inclusion in it.
 */
async function proven(party: SvcClient, at: LogEntry, decision: string) {
  const { data: entry } = await unwrap(
    party.GET('/v1/svc/transparency/entries/{index}', { params: { path: { index: at.index } } }),
  );
  expect(entry).toMatchObject({ index: at.index, leafHash: at.leafHash, decision: { decision } });
  expect(toBase64(await leafHashOf(new TextEncoder().encode(entry.entry)))).toBe(at.leafHash);

  // A third party: no key, the public endpoints and the SDK only.
  const anyone = sdkFor(cluster.gatewayUrl, undefined);
  const keys = (await unwrap(anyone.GET('/.well-known/jwks.json'))) as Parameters<typeof verifyTreeHead>[1];
  const { data: head } = await unwrap(anyone.GET('/v1/svc/transparency/tree-head'));
  expect(await verifyTreeHead(head, keys)).toBe(true);
  const { data: proof } = await unwrap(
    anyone.GET('/v1/svc/transparency/proofs/inclusion', {
      params: { query: { leafHash: at.leafHash, treeSize: head.treeSize } },
    }),
  );
  expect(proof.leafIndex).toBe(at.index);
  const inclusion = {
    leafHash: fromBase64(at.leafHash),
    index: proof.leafIndex,
    treeSize: head.treeSize,
    proof: proof.auditPath.map(fromBase64),
    rootHash: fromBase64(head.rootHash),
  };
  expect(await verifyInclusionProof(inclusion)).toBe(true);
  // One changed byte of the entry's hash and the proof no longer leads to the signed root.
  const tampered = Uint8Array.from(inclusion.leafHash);
  tampered[0] = (tampered[0] ?? 0) ^ 1;
  expect(await verifyInclusionProof({ ...inclusion, leafHash: tampered })).toBe(false);
}

describe('decisions in the transparency log, seen from the resources they concern (cluster mode)', () => {
  it('when a box is created, licensed, an avatar breaks it and the appeal is upheld, then box, license, violation and appeal each carry a logEntry their party can read and anyone can prove', async () => {
    const owner = await newClient('Logged owner');
    const licensee = await newClient('Logged licensee');
    const host = await newClient('Logged host');
    const boxed = await boxedIdentity(owner, 'LICENSE', {
      licenseTypes: { personal: { price: 4.99, autoApprove: true } },
    });
    const byBox = { params: { path: { id: boxed.boxId } } };

    const boxEntry = await logged(
      'box',
      async () => (await owner.GET('/v1/svc/boxes/{id}', byBox)).data?.data,
    );
    await proven(owner, boxEntry, 'box.created');
    // A monitor's first look, kept to prove every later log an extension of this one.
    const first = await checkTransparencyLog({ baseUrl: cluster.gatewayUrl });
    expect(first.kind).toBe('first');

    const licenseId = await activeLicense(licensee, boxed.boxId, 'personal');
    const byLicense = { params: { path: { id: licenseId } } };
    const licenseEntry = await logged(
      'license',
      async () => (await licensee.GET('/v1/svc/licenses/{id}', byLicense)).data?.data,
    );
    expect(licenseEntry.index).toBeGreaterThan(boxEntry.index);
    await proven(licensee, licenseEntry, 'license.activated');
    await proven(owner, licenseEntry, 'license.activated');

    const { data: reported } = await expectStatus(
      201,
      host.POST('/v1/svc/avatars', {
        body: { id: 'logged-avatar', name: boxed.name, creatorId: 'creator-1', userCount: 900 },
      }),
    );
    const violationId = reported.openViolations[0]!;
    const byViolation = { params: { path: { id: violationId } } };
    const opened = await logged(
      'violation',
      async () => (await host.GET('/v1/svc/violations/{id}', byViolation)).data?.data,
    );
    await proven(host, opened, 'violation.opened');

    const { data: appealed } = await expectStatus(
      200,
      host.POST('/v1/svc/violations/{id}/appeal', {
        ...byViolation,
        body: { reason: 'common_name', explanation: 'Another person of that name' },
      }),
    );
    const byAppeal = { params: { path: { id: appealed.appeal.id } } };
    await unwrap(
      host.POST('/v1/svc/test-helpers/appeals/{id}/decide', { ...byAppeal, body: { outcome: 'upheld' } }),
    );

    const appealEntry = await logged(
      'appeal',
      async () => (await host.GET('/v1/svc/appeals/{id}', byAppeal)).data?.data,
    );
    await proven(host, appealEntry, 'appeal.decided');
    // The dismissal is the violation's newest decision: its logEntry moves on to it.
    const dismissed = await logged(
      'violation',
      async () => (await host.GET('/v1/svc/violations/{id}', byViolation)).data?.data,
      (entry) => entry.index > opened.index,
    );
    await proven(host, dismissed, 'violation.dismissed');
    await proven(owner, dismissed, 'violation.dismissed');

    // The owner's view of the violations on its box shows the same entry.
    const { data: onBox } = await unwrap(owner.GET('/v1/svc/boxes/{id}/violations', byBox));
    expect(onBox.find((v) => v.id === violationId)?.logEntry).toEqual(dismissed);

    // The monitor's next look: the log grew by the later decisions, provably without rewriting.
    const later = await checkTransparencyLog({ baseUrl: cluster.gatewayUrl, last: first.head });
    expect(later.kind).toBe('grew');
  });
});
