import { createHash } from 'node:crypto';
import { amountOf, centsFromText } from '@svc/money';
import type { z } from 'zod';
import { paymentDue } from '@svc/contracts/billing';
import type { EventEnvelope } from '@svc/contracts/common';
import {
  gracePeriodCancelled,
  gracePeriodEnding,
  gracePeriodExpired,
  gracePeriodPaused,
  gracePeriodReminder,
  gracePeriodResolved,
  gracePeriodResumed,
  gracePeriodStarted,
} from '@svc/contracts/enforcement';
import { licenseRequestApproved, licenseRequestDenied } from '@svc/contracts/licensing';
import {
  endpointDisabledEventData,
  type PublicEventData,
  type WebhookEventType,
} from '@svc/contracts/webhook-dispatcher';

// Internal events → the public payloads platforms receive (docs/spec/service-interface.md, Events).
// Pure: the same internal event always gives the same public events, ids included. Each `data` is
// typed by the contract's public event schemas (@svc/contracts webhook-dispatcher/public-events.ts),
// which the OpenAPI document's `webhooks` section is generated from.

/** One public event for one platform, with the exact body that is signed and sent. */
export interface PublicEvent {
  id: string;
  type: WebhookEventType;
  platformId: string;
  createdAt: Date;
  body: Record<string, unknown>;
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * `evt_` + 24 base62 characters derived from (source event id, public type): stable across
 * redeliveries. The SHA-256 as a 256-bit number, its 24 lowest base-62 digits, lowest first. Worked
 * out on eight 32-bit limbs (long division by 62: each step's remainder × 2³² + limb stays under
 * 2⁵³) rather than with BigInt, which allocated two numbers a digit (a tenth of the intake's own
 * CPU per event); the digits are the same.
 */
export function publicEventId(sourceId: string, type: string): string {
  const digest = createHash('sha256').update(`${sourceId}:${type}`).digest();
  const limbs = [0, 4, 8, 12, 16, 20, 24, 28].map((at) => digest.readUInt32BE(at));
  let out = 'evt_';
  for (let digit = 0; digit < 24; digit += 1) {
    let remainder = 0;
    for (let i = 0; i < limbs.length; i += 1) {
      const current = remainder * 0x1_0000_0000 + (limbs[i] as number);
      limbs[i] = Math.floor(current / 62);
      remainder = current % 62;
    }
    out += ALPHABET[remainder];
  }
  return out;
}

/** The grace-period family: `{id, type, createdAt, data}` (camelCase data). */
function gracePeriodFamily(
  id: string,
  type: WebhookEventType,
  createdAt: Date,
  data: Record<string, unknown>,
) {
  return { id, type, createdAt: createdAt.toISOString(), data };
}

/** The boxing, license and payment family: `{id, event, createdAt, data}` (snake_case data). */
function boxingFamily(id: string, event: WebhookEventType, createdAt: Date, data: Record<string, unknown>) {
  return { id, event, createdAt: createdAt.toISOString(), data };
}

function make(
  source: EventEnvelope,
  platformId: string,
  type: WebhookEventType,
  data: Record<string, unknown>,
): PublicEvent {
  const id = publicEventId(source.id, type);
  const createdAt = new Date(source.occurredAt);
  const family = type.startsWith('grace_period.') ? gracePeriodFamily : boxingFamily;
  return { id, type, platformId, createdAt, body: family(id, type, createdAt, data) };
}

type GracePeriodData = ReturnType<typeof gracePeriodStarted.parse>['data'];

function gracePeriodData(d: GracePeriodData): PublicEventData<'grace_period.started'> {
  return {
    gracePeriodId: d.gracePeriodId,
    violationId: d.violationId,
    boxId: d.boxId,
    identityId: d.claimId,
    identityName: d.identityName,
    policy: d.policy,
    status: d.status,
    startedAt: d.startedAt,
    expiresAt: d.expiresAt,
    daysRemaining: d.daysRemaining,
    avatarIds: d.avatarIds,
  };
}

/** The public types whose `data` the contract types (all but the endpoint's own event). */
type DomainEventType = Exclude<WebhookEventType, 'webhook.endpoint_disabled'>;

/**
 * The public events an internal event becomes; [] for one platforms do not receive (or one
 * without a platform). `enforcement.grace_period.cancelled` (the box was removed) has no public
 * name of its own: the platform receives `grace_period.resolved` with `resolution: "box_removed"`,
 * since it no longer has to act.
 */
export function toPublicEvents(envelope: EventEnvelope): PublicEvent[] {
  const platformId = envelope.platformId;
  if (platformId === undefined) return [];
  const one = <T extends DomainEventType>(type: T, data: PublicEventData<T>) => [
    make(envelope, platformId, type, data),
  ];
  switch (envelope.type) {
    case gracePeriodStarted.type: {
      const d = gracePeriodStarted.parse(envelope).data;
      const boxing: PublicEventData<'boxing.created'> = {
        identity_id: d.claimId,
        identity_name: d.identityName,
        box_id: d.boxId,
        violation_id: d.violationId,
        grace_period_id: d.gracePeriodId,
        avatar_ids: d.avatarIds,
        policy: d.policy,
        deadline: d.expiresAt,
        days_remaining: d.daysRemaining,
      };
      return [
        make(envelope, platformId, 'grace_period.started', gracePeriodData(d)),
        make(envelope, platformId, 'boxing.created', boxing),
        make(envelope, platformId, 'boxing.grace_started', boxing),
      ];
    }
    case gracePeriodReminder.type: {
      const d = gracePeriodReminder.parse(envelope).data;
      return one('grace_period.reminder', {
        ...gracePeriodData(d),
        reminderDay: d.reminderDay,
      } satisfies PublicEventData<'grace_period.reminder'>);
    }
    case gracePeriodEnding.type:
      return one('grace_period.ending', gracePeriodData(gracePeriodEnding.parse(envelope).data));
    case gracePeriodExpired.type:
      return one('grace_period.expired', gracePeriodData(gracePeriodExpired.parse(envelope).data));
    case gracePeriodPaused.type: {
      const d = gracePeriodPaused.parse(envelope).data;
      return one('grace_period.paused', {
        ...gracePeriodData(d),
        appealId: d.appealId,
      } satisfies PublicEventData<'grace_period.paused'>);
    }
    case gracePeriodResumed.type: {
      const d = gracePeriodResumed.parse(envelope).data;
      return one('grace_period.resumed', {
        ...gracePeriodData(d),
        appealId: d.appealId,
      } satisfies PublicEventData<'grace_period.resumed'>);
    }
    case gracePeriodResolved.type: {
      const d = gracePeriodResolved.parse(envelope).data;
      return one('grace_period.resolved', {
        ...gracePeriodData(d),
        resolution: d.resolution,
        remainingAvatars: d.remainingAvatars,
      } satisfies PublicEventData<'grace_period.resolved'>);
    }
    case gracePeriodCancelled.type: {
      const d = gracePeriodCancelled.parse(envelope).data;
      return one('grace_period.resolved', {
        ...gracePeriodData(d),
        resolution: 'box_removed',
        remainingAvatars: 0,
      } satisfies PublicEventData<'grace_period.resolved'>);
    }
    case licenseRequestApproved.type: {
      const d = licenseRequestApproved.parse(envelope).data;
      return one('license.approved', {
        license_id: d.licenseId,
        request_id: d.requestId,
        identity_id: d.claimId,
        identity_name: d.identityName,
        box_id: d.boxId,
        tier: d.tier,
        automatic: d.automatic,
        approved_at: d.approvedAt,
      } satisfies PublicEventData<'license.approved'>);
    }
    case licenseRequestDenied.type: {
      const d = licenseRequestDenied.parse(envelope).data;
      return one('license.denied', {
        identity_id: d.claimId,
        identity_name: d.identityName,
        request_id: d.requestId,
        box_id: d.boxId,
        tier: d.tier,
        reason: d.reason,
        denied_at: d.deniedAt,
      } satisfies PublicEventData<'license.denied'>);
    }
    case paymentDue.type: {
      const d = paymentDue.parse(envelope).data;
      return one('payment.due', {
        // Events carry integer cents; the public amount is a decimal in the currency's units.
        amount: amountOf(centsFromText(d.amountCents)),
        kind: d.kind,
        currency: d.currency,
        recipient: d.recipient,
        payment_id: d.paymentId,
        license_id: d.licenseId,
        box_id: d.boxId,
        period: d.period,
        due_date: d.dueDate,
      } satisfies PublicEventData<'payment.due'>);
    }
    default:
      return [];
  }
}

/** The public event telling a platform that one of its endpoints was disabled. */
export function endpointDisabledEvent(input: {
  platformId: string;
  endpointId: string;
  url: string;
  reason: 'gone' | 'failing';
  disabledAt: Date;
  lastError: string | null;
}): PublicEvent {
  const type = 'webhook.endpoint_disabled' as const;
  const id = publicEventId(`${input.endpointId}:${input.disabledAt.toISOString()}`, type);
  const data: z.input<(typeof endpointDisabledEventData)['webhook.endpoint_disabled']> = {
    endpointId: input.endpointId,
    url: input.url,
    reason: input.reason,
    disabledAt: input.disabledAt.toISOString(),
    lastError: input.lastError,
  };
  return {
    id,
    type,
    platformId: input.platformId,
    createdAt: input.disabledAt,
    body: gracePeriodFamily(id, type, input.disabledAt, data),
  };
}

/** True when an endpoint subscribed to `events` receives `type`. */
export function endpointWants(events: readonly string[], type: string): boolean {
  return events.includes('*') || events.includes(type);
}
