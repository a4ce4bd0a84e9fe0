import { compactVerify, createLocalJWKSet } from 'jose';
import type { EventEnvelope } from '@svc/contracts/common';
import { violationCreated, violationDismissed, violationResolved } from '@svc/contracts/enforcement';
import { leafHash, verifyConsistency, verifyInclusion } from '@svc/merkle-log';
import { waitFor } from '@svc/test-kit';
import { startLicensingHarness, type LicensingHarness, type TestBox } from '../fixtures/licensing-harness';

// The transparency log licensing keeps (docs/spec/contracts.md §16, #31, ADR 0030): every decision is appended
// once from the event that announces it; anyone gets signed tree heads and proofs that verify
// with the published keys alone; an entry's content is for its parties only.
let h: LicensingHarness;
let anyone: ReturnType<LicensingHarness['platform']>;

beforeAll(async () => {
  h = await startLicensingHarness();
  // The gateway forwards the public operations with a token naming platform "public".
  anyone = h.platform({ platformId: 'public' });
});
afterAll(async () => {
  await h.stop();
});

const b64 = (value: string) => Buffer.from(value, 'base64');

async function treeHead() {
  const res = await anyone.call('GET', '/v1/svc/transparency/tree-head');
  expect(res.status).toBe(200);
  return res.body.data as { treeSize: number; rootHash: string; timestamp: string; signature: string };
}

async function entries(of: ReturnType<LicensingHarness['platform']>) {
  const head = await treeHead();
  const found = [];
  for (let index = 0; index < head.treeSize; index += 1) {
    const res = await of.call('GET', `/v1/svc/transparency/entries/${index}`);
    if (res.status === 200) found.push(res.body.data);
  }
  return found as { index: number; leafHash: string; entry: string; decision: Record<string, any> }[];
}

function violation(box: TestBox, host: string, type: 'created' | 'resolved' | 'dismissed'): EventEnvelope {
  const data = {
    violationId: 'viol_logged0000000000000000',
    boxId: box.boxId,
    claimId: box.claimId,
    identityName: box.identityName,
    boxOwnerPlatformId: box.owner.platformId,
    policy: 'LICENSE' as const,
    severity: 'high' as const,
    avatarId: 'avatar-9',
    userCount: 300,
    gracePeriodId: 'grace_logged000000000000000',
    occurredAt: h.clock.now().toISOString(),
  };
  const meta = { occurredAt: h.clock.now(), platformId: host };
  if (type === 'created')
    return violationCreated.create({ ...data, detectedAt: data.occurredAt, confidence: 0.97 }, meta);
  if (type === 'resolved')
    return violationResolved.create(
      {
        ...data,
        resolution: 'licensed',
        resolvedAt: data.occurredAt,
        licenseId: null,
        resolvedBy: 'platform',
      },
      meta,
    );
  return violationDismissed.create({ ...data, appealId: 'appeal_logged00000000000000' }, meta);
}

describe('the transparency log', () => {
  it('when a box is created, a license activated and a violation opened and dismissed on appeal, then each decision is logged once, for its parties only, and redelivery appends nothing', async () => {
    const licensee = h.platform();
    const host = h.platform();
    const { box, license } = await h.activeLicense(licensee);
    const opened = violation(box, host.platformId, 'created');
    await h.publish(opened);
    await h.publish(opened);
    await h.publish(violation(box, host.platformId, 'dismissed'));

    // box.created, license.activated (licensing's own event, through its outbox and the bus),
    // violation.opened, and the appeal's two decisions.
    await waitFor(async () => ((await treeHead()).treeSize >= 5 ? true : undefined), {
      what: 'five decisions in the log',
      timeoutMs: 10_000,
    });
    const mine = await entries(box.owner);
    expect(mine.map((e) => e.decision.decision)).toEqual([
      'box.created',
      'license.activated',
      'violation.opened',
      'appeal.decided',
      'violation.dismissed',
    ]);
    expect(mine[1]?.decision).toMatchObject({
      subject: { licenseId: license.id, boxId: box.boxId },
      facts: { tier: 'personal' },
      identityName: 'Ada Lovelace',
    });
    expect(mine[3]?.decision.facts).toEqual({ appealId: 'appeal_logged00000000000000', outcome: 'upheld' });
    for (const e of mine) expect(b64(e.leafHash)).toEqual(leafHash(Buffer.from(e.entry, 'utf8')));

    // The licensee sees the license's entry, the host the violation's; a stranger sees none.
    expect((await entries(licensee)).map((e) => e.decision.decision)).toEqual(['license.activated']);
    expect((await entries(host)).map((e) => e.decision.decision)).toEqual([
      'violation.opened',
      'appeal.decided',
      'violation.dismissed',
    ]);
    expect(await entries(h.platform())).toEqual([]);
    expect((await treeHead()).treeSize).toBe(5);

    // The license carries its entry, for the licensee; the box owner sees it on the granted request.
    const logEntry = { index: mine[1]!.index, leafHash: mine[1]!.leafHash };
    const read = await licensee.call('GET', `/v1/svc/licenses/${license.id}`);
    expect(read.body.data.logEntry).toEqual(logEntry);
    const requests = await box.owner.call('GET', `/v1/svc/boxes/${box.boxId}/license-requests`);
    expect(requests.body.data.find((r: any) => r.licenseId === license.id)?.licenseLogEntry).toEqual(
      logEntry,
    );
  });

  it('when anyone asks for the tree head and proofs, then they verify with the published keys alone, and a later head is proven an extension of the earlier one', async () => {
    const jwks = (await anyone.call('GET', '/.well-known/jwks.json')).body;
    const first = await treeHead();
    const { payload, protectedHeader } = await compactVerify(first.signature, createLocalJWKSet(jwks));
    expect(protectedHeader.alg).toBe('EdDSA');
    expect(JSON.parse(Buffer.from(payload).toString('utf8'))).toEqual({
      rootHash: first.rootHash,
      timestamp: first.timestamp,
      treeSize: first.treeSize,
    });

    const owned = await entries((await h.activeLicense(h.platform())).box.owner);
    await waitFor(async () => ((await treeHead()).treeSize >= first.treeSize + 2 ? true : undefined), {
      what: 'the new box and license in the log',
      timeoutMs: 10_000,
    });
    const second = await treeHead();
    const target = owned[0] ?? (await entries(h.platform()))[0];
    expect(target).toBeDefined();
    const proof = await anyone.call(
      'GET',
      `/v1/svc/transparency/proofs/inclusion?leafHash=${encodeURIComponent(target?.leafHash ?? '')}&treeSize=${second.treeSize}`,
    );
    expect(proof.status).toBe(200);
    expect(
      verifyInclusion(
        proof.body.data.leafIndex,
        second.treeSize,
        b64(target?.leafHash ?? ''),
        proof.body.data.auditPath.map(b64),
        b64(second.rootHash),
      ),
    ).toBe(true);

    const consistency = await anyone.call(
      'GET',
      `/v1/svc/transparency/proofs/consistency?first=${first.treeSize}&second=${second.treeSize}`,
    );
    expect(consistency.status).toBe(200);
    expect(
      verifyConsistency(
        first.treeSize,
        second.treeSize,
        consistency.body.data.proof.map(b64),
        b64(first.rootHash),
        b64(second.rootHash),
      ),
    ).toBe(true);
  });

  it('when a proof is asked for beyond the log or for an unknown leaf, then 400 or 404 with the reason', async () => {
    const head = await treeHead();
    const beyond = await anyone.call(
      'GET',
      `/v1/svc/transparency/proofs/consistency?first=1&second=${head.treeSize + 10}`,
    );
    expect(beyond.status).toBe(400);
    expect(beyond.body.error.code).toBe('VALIDATION_ERROR');
    const unknown = await anyone.call(
      'GET',
      `/v1/svc/transparency/proofs/inclusion?leafHash=${encodeURIComponent(Buffer.alloc(32).toString('base64'))}`,
    );
    expect(unknown.status).toBe(404);
    const malformed = await anyone.call('GET', '/v1/svc/transparency/proofs/inclusion?leafHash=abc');
    expect(malformed.status).toBe(400);
  });
});
