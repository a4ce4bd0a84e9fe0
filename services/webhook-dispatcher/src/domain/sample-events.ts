import { paymentDue } from '@svc/contracts/billing';
import type { EventEnvelope } from '@svc/contracts/common';
import {
  gracePeriodEnding,
  gracePeriodExpired,
  gracePeriodPaused,
  gracePeriodReminder,
  gracePeriodResolved,
  gracePeriodResumed,
  gracePeriodStarted,
} from '@svc/contracts/enforcement';
import { licenseRequestApproved, licenseRequestDenied } from '@svc/contracts/licensing';
import type { WebhookEventType } from '@svc/contracts/webhook-dispatcher';
import { newId } from '@svc/ids';
import { endpointDisabledEvent, toPublicEvents, type PublicEvent } from './public-events';

// Sample events for POST /webhooks/test: built from sample internal events by the same mapping
// as real ones, so a test shows the real shape. The body carries `test: true`.

const DAY = 86_400_000;

function internalSample(type: WebhookEventType, platformId: string, now: Date): EventEnvelope | null {
  const meta = { occurredAt: now, platformId };
  const gp = {
    gracePeriodId: 'gp_test0000000000000000',
    violationId: 'viol_test0000000000000000',
    boxId: 'box_test0000000000000000',
    claimId: 'claim_test0000000000000000',
    identityName: 'Sample Identity',
    boxOwnerPlatformId: 'plat_test0000000000000000',
    policy: 'LICENSE' as const,
    status: 'active' as const,
    startedAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + 30 * DAY).toISOString(),
    daysRemaining: 30,
    avatarIds: ['av_sample'],
  };
  const request = {
    requestId: 'req_test0000000000000000',
    boxId: gp.boxId,
    claimId: gp.claimId,
    identityName: gp.identityName,
    tier: 'commercial' as const,
    licenseePlatformId: platformId,
    boxOwnerPlatformId: gp.boxOwnerPlatformId,
    submittedAt: now.toISOString(),
  };
  switch (type) {
    case 'grace_period.started':
    case 'boxing.created':
    case 'boxing.grace_started':
      return gracePeriodStarted.create(gp, meta);
    case 'grace_period.reminder':
      return gracePeriodReminder.create({ ...gp, daysRemaining: 23, reminderDay: 7 }, meta);
    case 'grace_period.ending':
      return gracePeriodEnding.create({ ...gp, daysRemaining: 2 }, meta);
    case 'grace_period.expired':
      return gracePeriodExpired.create({ ...gp, status: 'expired', daysRemaining: 0 }, meta);
    case 'grace_period.resolved':
      return gracePeriodResolved.create(
        { ...gp, status: 'resolved', resolution: 'licensed', remainingAvatars: 0 },
        meta,
      );
    case 'grace_period.paused':
      return gracePeriodPaused.create(
        { ...gp, status: 'paused', appealId: 'appeal_test0000000000000000' },
        meta,
      );
    case 'grace_period.resumed':
      return gracePeriodResumed.create({ ...gp, appealId: 'appeal_test0000000000000000' }, meta);
    case 'license.approved':
      return licenseRequestApproved.create(
        { ...request, licenseId: 'lic_test0000000000000000', approvedAt: now.toISOString(), automatic: true },
        meta,
      );
    case 'license.denied':
      return licenseRequestDenied.create(
        { ...request, reason: 'Sample denial', deniedAt: now.toISOString() },
        meta,
      );
    case 'payment.due':
      return paymentDue.create(
        {
          paymentId: 'pay_test0000000000000000',
          licenseId: 'lic_test0000000000000000',
          boxId: gp.boxId,
          period: now.toISOString().slice(0, 7),
          amountCents: 12_345,
          currency: 'USD',
          recipient: gp.boxOwnerPlatformId,
          payerPlatformId: platformId,
          dueDate: new Date(now.getTime() + 30 * DAY).toISOString(),
        },
        meta,
      );
    default:
      return null;
  }
}

/** A sample public event of `type` for `platformId`, with a fresh id and `test: true`. */
export function sampleEvent(type: WebhookEventType, platformId: string, now: Date): PublicEvent {
  const internal = internalSample(type, platformId, now);
  const event =
    internal === null
      ? endpointDisabledEvent({
          platformId,
          endpointId: 'we_test0000000000000000',
          url: 'https://hooks.example/sample',
          reason: 'gone',
          disabledAt: now,
          lastError: 'HTTP 410',
        })
      : toPublicEvents({ ...internal, id: newId('evt') }).find((e) => e.type === type);
  if (event === undefined) throw new Error(`no sample for ${type}`);
  const id = newId('evt');
  return { ...event, id, body: { ...event.body, id, test: true } };
}
