import { billingEvents } from './billing/events';
import { detectionEvents } from './detection/events';
import { enforcementEvents } from './enforcement/events';
import { licensingEvents } from './licensing/events';
import { registryEvents } from './registry/events';

// Every consumer queue of the system and the routing patterns bound to it. Each service, started
// on RabbitMQ, declares all of them before its outbox relay publishes anything, so an event whose
// consumer has never run yet (a first install; a queue or binding a new version adds) waits in
// that consumer's durable queue instead of being dropped by the broker as unroutable. A service
// refuses to start when one of its subscriptions differs from its entry here (docs/adr/0009).

const typeOf = (events: readonly { type: string }[], type: string): string => {
  const found = events.find((event) => event.type === type);
  if (found === undefined) throw new Error(`no event ${type} in the contracts`);
  return found.type;
};

/** A consumer's queue and the patterns bound to it on the events exchange. */
export interface EventQueue {
  queue: string;
  patterns: readonly string[];
}

export const EVENT_QUEUES: readonly EventQueue[] = [
  { queue: 'detection.identities', patterns: ['registry.claim.*', 'registry.box.*'] },
  { queue: 'detection.licenses', patterns: ['licensing.license.*'] },
  { queue: 'enforcement.boxes', patterns: ['registry.box.*'] },
  { queue: 'enforcement.licenses', patterns: ['licensing.license.*'] },
  { queue: 'enforcement.box-indexed', patterns: [typeOf(detectionEvents, 'detection.box.indexed')] },
  { queue: 'registry.box-stats.violations', patterns: ['enforcement.violation.*'] },
  { queue: 'registry.box-stats.grace-periods', patterns: ['enforcement.grace_period.*'] },
  { queue: 'registry.box-stats.licenses', patterns: ['licensing.license.*', 'licensing.request.*'] },
  { queue: 'registry.box-stats.usage', patterns: [typeOf(billingEvents, 'billing.usage.reported')] },
  { queue: 'registry.box-stats.fees', patterns: [typeOf(billingEvents, 'billing.payment.due')] },
  {
    queue: 'registry.face-enrolment',
    patterns: [typeOf(detectionEvents, 'detection.reference_image.enrolled')],
  },
  {
    queue: 'billing.license-projection',
    patterns: [
      'licensing.license.activated',
      'licensing.license.renewed',
      'licensing.license.cancelled',
      'licensing.license.expired',
      'licensing.license.revoked',
    ].map((type) => typeOf(licensingEvents, type)),
  },
  { queue: 'billing.sandbox-clocks', patterns: [typeOf(enforcementEvents, 'enforcement.clock.advanced')] },
  { queue: 'licensing.boxes', patterns: ['registry.box.*'] },
  {
    // The transparency log (docs/spec/contracts.md §16, docs/adr/0030): every decision on whether an avatar may exist.
    queue: 'licensing.transparency',
    patterns: [
      typeOf(registryEvents, 'registry.box.created'),
      typeOf(registryEvents, 'registry.box.deleted'),
      ...[
        'licensing.license.activated',
        'licensing.license.renewed',
        'licensing.license.revoked',
        'licensing.license.cancelled',
        'licensing.license.expired',
      ].map((type) => typeOf(licensingEvents, type)),
      ...[
        'enforcement.violation.created',
        'enforcement.violation.resolved',
        'enforcement.violation.enforced',
        'enforcement.violation.dismissed',
        'enforcement.violation.reopened',
      ].map((type) => typeOf(enforcementEvents, type)),
    ],
  },
  // Where each logged decision sits in the log, for the resources other services own (docs/spec/contracts.md §16).
  { queue: 'registry.log-entries', patterns: [typeOf(licensingEvents, 'licensing.log_entry.appended')] },
  { queue: 'enforcement.log-entries', patterns: [typeOf(licensingEvents, 'licensing.log_entry.appended')] },
  { queue: 'licensing.sandbox-clocks', patterns: [typeOf(enforcementEvents, 'enforcement.clock.advanced')] },
  {
    // The mail creators expect (#30): a license request waiting for them, a violation on their
    // identity, another account's claim on a name they protect (#32).
    queue: 'gateway.creator-notifications',
    patterns: [
      typeOf(licensingEvents, 'licensing.request.created'),
      typeOf(enforcementEvents, 'enforcement.violation.created'),
      typeOf(registryEvents, 'registry.claim_conflict.detected'),
    ],
  },
  {
    queue: 'webhook-dispatcher.platform-events',
    patterns: [
      'enforcement.grace_period.*',
      typeOf(licensingEvents, 'licensing.request.approved'),
      typeOf(licensingEvents, 'licensing.request.denied'),
      typeOf(billingEvents, 'billing.payment.due'),
    ],
  },
];

/**
 * The patterns the topology binds to `queue`: what its consumer subscribes with, so that a
 * consumer's bindings are written once, here (issue #33). Throws for a queue the topology lacks.
 */
export function patternsOf(queue: string): string[] {
  const entry = EVENT_QUEUES.find((candidate) => candidate.queue === queue);
  if (entry === undefined) throw new Error(`queue ${queue} is not in the system's event topology`);
  return [...entry.patterns];
}

/**
 * Why `subscription` is not the system's entry for its queue (unknown queue, other patterns), or
 * undefined when it is.
 */
export function topologyMismatch(subscription: {
  queue: string;
  patterns: readonly string[];
}): string | undefined {
  const entry = EVENT_QUEUES.find((candidate) => candidate.queue === subscription.queue);
  if (entry === undefined) return `queue ${subscription.queue} is not in the system's event topology`;
  const want = [...entry.patterns].sort().join(', ');
  const have = [...subscription.patterns].sort().join(', ');
  if (want !== have) return `queue ${subscription.queue} binds ${have}; the event topology says ${want}`;
  return undefined;
}
