import type { AnyEventDefinition, EventEnvelope } from './common/envelope';
import type { Operation } from './common/operation';
import { billingEvents } from './billing/events';
import { billingOperations } from './billing/operations';
import { detectionEvents } from './detection/events';
import { detectionOperations } from './detection/operations';
import { enforcementEvents } from './enforcement/events';
import { enforcementOperations } from './enforcement/operations';
import { dashboardOperations } from './gateway/dashboard';
import { dashboardBatchOperations } from './gateway/dashboard-batch';
import { requestLogOperations } from './gateway/request-log';
import { memberOperations } from './gateway/members';
import { accountMailOperations } from './gateway/account-mail';
import { adminOperations } from './gateway/operations';
import { licensingEvents } from './licensing/events';
import { licensingOperations } from './licensing/operations';
import { transparencyOperations } from './licensing/transparency';
import { registryEvents } from './registry/events';
import { registryOperations } from './registry/operations';
import { webhookDispatcherEvents } from './webhook-dispatcher/events';
import { webhookOperations } from './webhook-dispatcher/operations';

// The explicit lists of every service's operations and events (docs/adr/0018). Nothing registers
// itself on import: adding a service's contract is adding its list here. The order is the order
// of the OpenAPI document's paths and components.

function unique<T>(items: readonly T[], keyOf: (item: T) => string, what: string): readonly T[] {
  const seen = new Set<string>();
  for (const item of items) {
    const key = keyOf(item);
    if (seen.has(key)) throw new Error(`${what} ${key} is declared twice`);
    seen.add(key);
  }
  return Object.freeze([...items]);
}

/** Lists operations, refusing an id listed twice. */
export function listOperations(operations: readonly Operation[]): readonly Operation[] {
  return unique(operations, (operation) => operation.id, 'Operation');
}

/** Lists event types, refusing a type listed twice. */
export function listEvents(events: readonly AnyEventDefinition[]): readonly AnyEventDefinition[] {
  return unique(events, (event) => event.type, 'Event');
}

/** Every public operation: what the gateway routes, the OpenAPI document shows and the fuzz suite sends. */
export const allOperations: readonly Operation[] = listOperations([
  ...Object.values(adminOperations),
  ...Object.values(dashboardOperations),
  ...Object.values(dashboardBatchOperations),
  ...Object.values(requestLogOperations),
  ...Object.values(memberOperations),
  // Listed here, not in adminOperations: account-mail.ts reads dashboard.ts's session schema (#30).
  ...Object.values(accountMailOperations),
  ...Object.values(registryOperations),
  ...webhookOperations,
  ...Object.values(licensingOperations),
  ...Object.values(transparencyOperations),
  ...Object.values(billingOperations),
  ...Object.values(detectionOperations),
  ...Object.values(enforcementOperations),
]);

/** Every event type on the bus, for the catalogue, the outbox's entity ids and the webhook mapping tests. */
export const allEvents: readonly AnyEventDefinition[] = listEvents([
  ...enforcementEvents,
  ...licensingEvents,
  ...billingEvents,
  ...registryEvents,
  ...webhookDispatcherEvents,
  ...detectionEvents,
]);

const entityKeyByType = new Map(allEvents.map((event) => [event.type, event.entityKey]));

/**
 * The entity an event of a listed type is about (the value of its definition's `entityKey`),
 * or null when its type versions no entity.
 */
export function entityIdOf(envelope: Pick<EventEnvelope, 'type' | 'data'>): string | null {
  const key = entityKeyByType.get(envelope.type);
  if (key === undefined) return null;
  const id = envelope.data[key];
  return typeof id === 'string' && id.length > 0 ? id : null;
}
