import type { EventEnvelope } from '@svc/contracts/common';
import { licenseActivated, licenseCancelled, licenseExpired, licenseRenewed } from '@svc/contracts/licensing';
import {
  boxCreated,
  boxDeleted,
  boxUpdated,
  claimCreated,
  claimDeleted,
  claimUpdated,
  claimVerified,
} from '@svc/contracts/registry';
import { newId } from '@svc/ids';
import { assertOrderIndependent, stampVersions } from '@svc/test-kit';
import fc from 'fast-check';
import { startDetectionHarness, type DetectionHarness } from '../fixtures/detection-harness';

// ADR 0010: the identity index ends in the same state whatever order and however many times the
// registry's and licensing's events arrive.

interface TestBox {
  boxId: string;
  createdAt: string;
  policy: 'LICENSE' | 'BLOCK_ALL' | 'OPEN';
}

type Step = 'verify' | 'rename' | 'suspend' | 'box' | 'rebox' | 'unbox' | 'delete';

/** A claim's life at the registry, as the events it publishes (versions as its outbox stamps them). */
function claimHistory(steps: Step[], name = 'Ada Lovelace'): EventEnvelope[] {
  const owner = newId('plat');
  const claimId = newId('claim');
  let at = Date.parse('2026-11-01T00:00:00Z');
  let status: 'pending' | 'verified' | 'suspended' = 'pending';
  let variations: string[] = [];
  let box = null as TestBox | null;
  // The claim's entity version as the registry's outbox stamps it: one per claim event.
  let claimVersion = 0;
  const events: EventEnvelope[] = [];
  const claimEvent = (event: EventEnvelope) => {
    claimVersion += 1;
    events.push(event);
  };
  const meta = () => ({ occurredAt: new Date(at), platformId: owner });
  const claim = () => ({
    claimId,
    ownerPlatformId: owner,
    name,
    variations,
    entityType: 'INDIVIDUAL' as const,
    status,
    verificationTier: 'SILVER' as const,
    referenceImages: [],
    verifiedAt: status === 'pending' ? null : '2026-11-01T00:00:00.000Z',
    boxId: box?.boxId ?? null,
    createdAt: '2026-11-01T00:00:00.000Z',
    updatedAt: new Date(at).toISOString(),
  });
  const boxData = (b: TestBox) => ({
    boxId: b.boxId,
    claimId,
    ownerPlatformId: owner,
    identityName: name,
    variations,
    entityType: 'INDIVIDUAL' as const,
    verificationTier: 'SILVER' as const,
    policy: b.policy,
    enforcement: 'MODERATE' as const,
    policyConfig: { policy: b.policy },
    royaltyRate: 0,
    referenceImageUrls: [],
    status: 'active' as const,
    createdAt: b.createdAt,
    updatedAt: new Date(at).toISOString(),
    claimVersion,
  });
  const unbox = (b: TestBox) =>
    boxDeleted.create(
      {
        boxId: b.boxId,
        claimId,
        ownerPlatformId: owner,
        identityName: name,
        deletedAt: meta().occurredAt.toISOString(),
      },
      meta(),
    );
  claimEvent(claimCreated.create(claim(), meta()));
  for (const step of steps) {
    at += 1000;
    if (step === 'verify' && status !== 'verified') {
      status = 'verified';
      claimEvent(claimVerified.create(claim(), meta()));
    } else if (step === 'rename' && status !== 'pending') {
      variations = [...variations, `Countess ${variations.length + 1}`];
      claimEvent(claimUpdated.create(claim(), meta()));
    } else if (step === 'suspend' && status === 'verified') {
      status = 'suspended';
      claimEvent(claimUpdated.create(claim(), meta()));
    } else if (step === 'box' && status === 'verified' && box === null) {
      box = { boxId: newId('box'), createdAt: new Date(at).toISOString(), policy: 'LICENSE' };
      events.push(boxCreated.create(boxData(box), meta()));
    } else if (step === 'rebox' && box !== null) {
      box = { ...box, policy: box.policy === 'LICENSE' ? 'BLOCK_ALL' : 'OPEN' };
      events.push(boxUpdated.create(boxData(box), meta()));
    } else if (step === 'unbox' && box !== null) {
      events.push(unbox(box));
      box = null;
    } else if (step === 'delete') {
      if (box !== null) events.push(unbox(box));
      claimEvent(
        claimDeleted.create(
          {
            claimId,
            ownerPlatformId: owner,
            boxId: box?.boxId ?? null,
            deletedAt: meta().occurredAt.toISOString(),
          },
          meta(),
        ),
      );
      break;
    }
  }
  return stampVersions(events);
}

const steps = fc.array(
  fc.constantFrom<Step>('verify', 'rename', 'suspend', 'box', 'rebox', 'unbox', 'delete'),
  {
    minLength: 1,
    maxLength: 9,
  },
);

type LicenseStep = 'renew' | 'cancel' | 'expire';

function licenseHistory(later: LicenseStep[]): EventEnvelope[] {
  const licensee = newId('plat');
  const licenseId = newId('lic');
  const at = Date.parse('2026-11-01T00:00:00Z');
  let expiresAt = Date.parse('2026-12-01T00:00:00Z');
  const data = (status: 'active' | 'cancelled' | 'expired') => ({
    licenseId,
    boxId: 'box_0000000000000000',
    claimId: 'claim_0000000000000000',
    identityName: 'Ada Lovelace',
    tier: 'personal' as const,
    status,
    licenseePlatformId: licensee,
    licenseePlatformName: 'Licensee',
    boxOwnerPlatformId: 'plat_0000000000000000',
    monthlyFeeCents: 999,
    royaltyRate: 0,
    currency: 'USD',
    validFrom: '2026-11-01T00:00:00.000Z',
    expiresAt: new Date(expiresAt).toISOString(),
    autoRenew: false,
  });
  // Every event at the same instant: only the version can order them.
  const meta = () => ({ occurredAt: new Date(at), platformId: licensee });
  const events: EventEnvelope[] = [licenseActivated.create(data('active'), meta())];
  for (const step of later) {
    if (step === 'renew') {
      const previous = new Date(expiresAt).toISOString();
      expiresAt += 30 * 86_400_000;
      events.push(
        licenseRenewed.create(
          { ...data('active'), previousExpiry: previous, newExpiry: new Date(expiresAt).toISOString() },
          meta(),
        ),
      );
    } else if (step === 'cancel') {
      events.push(
        licenseCancelled.create(
          {
            ...data('cancelled'),
            reason: null,
            effectiveDate: 'immediate',
            effectiveAt: new Date(at).toISOString(),
          },
          meta(),
        ),
      );
      break;
    } else {
      events.push(licenseExpired.create(data('expired'), meta()));
      break;
    }
  }
  return stampVersions(events);
}

describe('the identity index under any order of delivery', () => {
  let h: DetectionHarness;

  beforeAll(async () => {
    h = await startDetectionHarness();
  });

  afterAll(async () => {
    await h.stop();
  });

  const deliver = async (envelope: EventEnvelope) => {
    await h.bus.publish(envelope);
  };

  it('when a claim and its boxes are delivered shuffled and twice, then the index ends as with in-order delivery', async () => {
    await assertOrderIndependent({
      history: steps.map(claimHistory),
      deliver,
      state: async (history) => {
        const claimId = (history[0]?.data as { claimId: string }).claimId;
        const { rows } = await h.running.db.query<Record<string, unknown>>(
          `SELECT removed, CASE WHEN removed THEN NULL ELSE name END AS name,
             CASE WHEN removed THEN NULL ELSE variations END AS variations,
             box_id, policy, policy_config, boxed_at
           FROM identities WHERE claim_id = $1`,
          [claimId],
        );
        return rows;
      },
      numRuns: 40,
    });
  });

  it('when a pending claim event arrives after its verification and box, then the boxed identity still matches', async () => {
    const history = claimHistory(['verify', 'box'], 'Grace Hopper');
    const [created, verified, boxed] = history as [EventEnvelope, EventEnvelope, EventEnvelope];
    await deliver(verified);
    await deliver(boxed);
    await deliver(created);
    const caller = h.platform();
    const reply = await caller.call('POST', '/identity/check', { name: 'Grace Hopper' });
    expect(reply.body).toMatchObject({
      status: 'BOXED',
      identity_id: (verified.data as { claimId: string }).claimId,
    });
  });

  it("when a box arrives before its claim, and the claim's pending creation after the box, then the identity matches at every step", async () => {
    // After an outage the broker hands messages back in a rotated order: the box first, then the
    // claim's creation (pending), then its verification. The identity the box brought is the
    // claim as verified; the older creation must not take it out of the index (the box's
    // initial scan, announced by the box, would have found nothing).
    const history = claimHistory(['verify', 'box'], 'Katherine Johnson');
    const [created, verified, boxed] = history as [EventEnvelope, EventEnvelope, EventEnvelope];
    const caller = h.platform();
    const claimId = (verified.data as { claimId: string }).claimId;
    for (const event of [boxed, created, verified]) {
      await deliver(event);
      const reply = await caller.call('POST', '/identity/check', { name: 'Katherine Johnson' });
      expect({ after: event.type, body: reply.body }).toMatchObject({
        after: event.type,
        body: { status: 'BOXED', identity_id: claimId },
      });
    }
  });

  it('when a license lifecycle at one instant is delivered shuffled and twice, then the license ends as in order', async () => {
    await assertOrderIndependent({
      history: fc
        .array(fc.constantFrom<LicenseStep>('renew', 'cancel', 'expire'), { maxLength: 4 })
        .map(licenseHistory),
      deliver,
      state: async (history) => {
        const licenseId = (history[0]?.data as { licenseId: string }).licenseId;
        const { rows } = await h.running.db.query(
          'SELECT status, expires_at FROM licenses WHERE license_id = $1',
          [licenseId],
        );
        return rows;
      },
    });
  });

  it('when an event carries no version (written before versions), then it is still applied', async () => {
    const [created, verified] = claimHistory(['verify']).map(
      ({ entity: _entity, ...unversioned }) => unversioned,
    ) as [EventEnvelope, EventEnvelope];
    await deliver(verified);
    await deliver(created);
    const claimId = (verified.data as { claimId: string }).claimId;
    const { rows } = await h.running.db.query(
      'SELECT removed, claim_version FROM identities WHERE claim_id = $1',
      [claimId],
    );
    expect(rows.map((row) => [row.removed, Number(row.claim_version)])).toEqual([[false, 0]]);
  });
});
