import { usageReported } from '@svc/contracts/billing';
import type { EventEnvelope } from '@svc/contracts/common';
import { gracePeriodEvents, violationEvents } from '@svc/contracts/enforcement';
import {
  licenseActivated,
  licenseCancelled,
  licenseExpired,
  licenseRenewed,
  licenseRevoked,
} from '@svc/contracts/licensing';
import { boxCreated, boxDeleted, boxUpdated } from '@svc/contracts/registry';
import { newId } from '@svc/ids';
import fc from 'fast-check';
import { stampVersions } from './delivery-orders';

// Histories of one entity's events as its owner writes them, for the order-independence
// properties (ADR 0010). Every event of a history carries the same instant, so only the entity
// version can order them: the hardest case for a consumer.

const AT = new Date('2026-11-22T10:00:00.000Z');

type BoxStep =
  { kind: 'update'; policy: 'LICENSE' | 'BLOCK_ALL' | 'OPEN'; price: number } | { kind: 'delete' };

/** A box created, updated a few times, perhaps deleted (registry.box.*). */
export function boxHistories(): fc.Arbitrary<EventEnvelope[]> {
  const step: fc.Arbitrary<BoxStep> = fc.oneof(
    fc.record({
      kind: fc.constant('update' as const),
      policy: fc.constantFrom('LICENSE' as const, 'BLOCK_ALL' as const, 'OPEN' as const),
      price: fc.integer({ min: 1, max: 99 }),
    }),
    fc.constant({ kind: 'delete' as const }),
  );
  return fc.array(step, { maxLength: 5 }).map((steps) => {
    const owner = newId('plat');
    const base = {
      boxId: newId('box'),
      claimId: newId('claim'),
      ownerPlatformId: owner,
      identityName: 'Ada Lovelace',
      variations: [],
      entityType: 'INDIVIDUAL' as const,
      verificationTier: 'SILVER' as const,
      enforcement: 'MODERATE' as const,
      royaltyRate: 0,
      referenceImageUrls: [],
      status: 'active' as const,
      createdAt: AT.toISOString(),
      updatedAt: AT.toISOString(),
    };
    const config = (price: number) => ({ licenseTypes: { personal: { price, autoApprove: true } } });
    const meta = { occurredAt: AT, platformId: owner };
    const events: EventEnvelope[] = [
      boxCreated.create({ ...base, policy: 'LICENSE', policyConfig: config(10) }, meta),
    ];
    for (const s of steps) {
      if (s.kind === 'delete') {
        const { boxId, claimId, ownerPlatformId, identityName } = base;
        events.push(
          boxDeleted.create(
            { boxId, claimId, ownerPlatformId, identityName, deletedAt: AT.toISOString() },
            meta,
          ),
        );
        break;
      }
      events.push(boxUpdated.create({ ...base, policy: s.policy, policyConfig: config(s.price) }, meta));
    }
    return stampVersions(events);
  });
}

type LicenseStep = 'renew' | 'cancel' | 'expire' | 'revoke';

/** A license activated, renewed a few times, perhaps ended (licensing.license.*). */
export function licenseHistories(
  options: { boxId?: string; licenseePlatformId?: string } = {},
): fc.Arbitrary<EventEnvelope[]> {
  return fc
    .array(fc.constantFrom<LicenseStep>('renew', 'cancel', 'expire', 'revoke'), { maxLength: 4 })
    .map((steps) => {
      const licensee = options.licenseePlatformId ?? newId('plat');
      let expiresAt = Date.parse('2026-12-22T10:00:00.000Z');
      const data = (status: 'active' | 'cancelled' | 'expired' | 'revoked') => ({
        licenseId: newId('lic'),
        boxId: options.boxId ?? newId('box'),
        claimId: newId('claim'),
        identityName: 'Ada Lovelace',
        tier: 'personal' as const,
        status,
        licenseePlatformId: licensee,
        licenseePlatformName: 'Licensee',
        boxOwnerPlatformId: newId('plat'),
        monthlyFeeCents: '999',
        royaltyRate: 0.1,
        currency: 'USD',
        validFrom: AT.toISOString(),
        expiresAt: new Date(expiresAt).toISOString(),
        autoRenew: false,
      });
      const first = data('active');
      const same = {
        licenseId: first.licenseId,
        boxId: first.boxId,
        claimId: first.claimId,
        boxOwnerPlatformId: first.boxOwnerPlatformId,
      };
      const meta = { occurredAt: AT, platformId: licensee };
      const events: EventEnvelope[] = [licenseActivated.create(first, meta)];
      for (const step of steps) {
        if (step === 'renew') {
          const previousExpiry = new Date(expiresAt).toISOString();
          expiresAt += 30 * 86_400_000;
          events.push(
            licenseRenewed.create(
              { ...data('active'), ...same, previousExpiry, newExpiry: new Date(expiresAt).toISOString() },
              meta,
            ),
          );
          continue;
        }
        if (step === 'cancel') {
          events.push(
            licenseCancelled.create(
              {
                ...data('cancelled'),
                ...same,
                reason: null,
                effectiveDate: 'immediate',
                effectiveAt: AT.toISOString(),
              },
              meta,
            ),
          );
        } else if (step === 'expire') {
          events.push(licenseExpired.create({ ...data('expired'), ...same }, meta));
        } else {
          events.push(licenseRevoked.create({ ...data('revoked'), ...same, reason: 'terms' }, meta));
        }
        break;
      }
      return stampVersions(events);
    });
}

/** The types a violation's life may take, in an order enforcement could publish them. */
const VIOLATION_PATHS = [
  ['created'],
  ['created', 'resolved'],
  ['created', 'appealed', 'dismissed'],
  ['created', 'appealed', 'reopened', 'appealed', 'reopened', 'enforced'],
  ['created', 'appealed', 'reopened', 'resolved'],
] as const;

/** A violation's events (enforcement.violation.*) and its grace period's (enforcement.grace_period.*), on one box. */
export function violationHistories(boxId: string): fc.Arbitrary<EventEnvelope[]> {
  return fc.constantFrom(...VIOLATION_PATHS).map((path) => {
    const platform = newId('plat');
    const violationId = newId('viol');
    const gracePeriodId = newId('gp');
    const appealId = newId('appeal');
    const common = {
      violationId,
      boxId,
      claimId: newId('claim'),
      identityName: 'Ada Lovelace',
      boxOwnerPlatformId: newId('plat'),
      policy: 'LICENSE' as const,
      severity: 'medium' as const,
      avatarId: newId('av'),
      userCount: 10,
      gracePeriodId,
      occurredAt: AT.toISOString(),
    };
    const grace = (status: 'active' | 'paused' | 'resolved' | 'expired') => ({
      gracePeriodId,
      violationId,
      boxId,
      claimId: common.claimId,
      identityName: common.identityName,
      boxOwnerPlatformId: common.boxOwnerPlatformId,
      policy: common.policy,
      status,
      startedAt: AT.toISOString(),
      expiresAt: new Date(AT.getTime() + 86_400_000).toISOString(),
      daysRemaining: 1,
      avatarIds: [common.avatarId],
    });
    const find = <T extends { type: string }>(list: readonly T[], type: string): T => {
      const found = list.find((d) => d.type === type);
      if (found === undefined) throw new Error(`no event ${type}`);
      return found;
    };
    const meta = { occurredAt: AT, platformId: platform };
    const v = (verb: string, extra: Record<string, unknown>) =>
      find(violationEvents, `enforcement.violation.${verb}`).create({ ...common, ...extra } as never, meta);
    const g = (verb: string, status: Parameters<typeof grace>[0], extra: Record<string, unknown> = {}) =>
      find(gracePeriodEvents, `enforcement.grace_period.${verb}`).create(
        { ...grace(status), ...extra } as never,
        meta,
      );
    const events: EventEnvelope[] = [];
    for (const verb of path) {
      if (verb === 'created') {
        events.push(v('created', { detectedAt: AT.toISOString(), confidence: 0.9 }), g('started', 'active'));
      } else if (verb === 'resolved') {
        events.push(
          v('resolved', { resolution: 'removed', resolvedAt: AT.toISOString(), licenseId: null }),
          g('resolved', 'resolved', { resolution: 'removed', remainingAvatars: 0 }),
        );
      } else if (verb === 'appealed') {
        events.push(v('appealed', { appealId, reason: 'parody' }), g('paused', 'paused', { appealId }));
      } else if (verb === 'reopened') {
        events.push(v('reopened', { appealId }), g('resumed', 'active', { appealId }));
      } else if (verb === 'dismissed') {
        events.push(
          v('dismissed', { appealId }),
          g('resolved', 'resolved', { resolution: 'dismissed', remainingAvatars: 0 }),
        );
      } else {
        events.push(v('enforced', {}), g('expired', 'expired'));
      }
    }
    return stampVersions(events);
  });
}

/**
 * A period's usage report and its corrections (billing.usage.reported, versions 1..n in the
 * data: billing numbers them per license and period), on one box.
 */
export function usageHistories(boxId: string): fc.Arbitrary<EventEnvelope[]> {
  return fc.array(fc.integer({ min: 0, max: 100_000 }), { minLength: 1, maxLength: 4 }).map((totals) => {
    const licensee = newId('plat');
    const licenseId = newId('lic');
    return totals.map((totalCents, i) =>
      usageReported.create(
        {
          reportId: newId('usage'),
          licenseId,
          boxId,
          licenseePlatformId: licensee,
          licenseePlatformName: 'Licensee',
          boxOwnerPlatformId: newId('plat'),
          period: '2026-11',
          version: i + 1,
          metrics: { messages: totalCents },
          users: i + 1,
          // Cents as events carry them: decimal text (ADR 0039).
          revenueCents: { subscriptions: String(totalCents), messages: '0', tips: '0', ads: '0', other: '0' },
          totalRevenueCents: String(totalCents),
          royaltyRate: 0.1,
          royaltyDueCents: String(Math.round(totalCents / 10)),
          currency: 'USD',
          dueDate: '2026-12-15T00:00:00.000Z',
          reportedAt: AT.toISOString(),
        },
        { occurredAt: AT, platformId: licensee },
      ),
    );
  });
}
