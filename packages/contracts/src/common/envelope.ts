import { z } from 'zod';
import { newId } from '@svc/ids';

/** Every event on the bus: a past-tense fact in one envelope (docs/spec/architecture.md, Messages). */
export const eventEnvelopeSchema = z.object({
  id: z.string().regex(/^evt_[0-9A-Za-z]{16,}$/),
  /** `<service>.<entity>.<verb>`; also the routing key. */
  type: z.string().regex(/^[a-z0-9_-]+(\.[a-z0-9_-]+){2,}$/),
  /** Schema version of `data`. */
  version: z.number().int().positive(),
  occurredAt: z.iso.datetime({ offset: true }),
  /** The platform the fact belongs to, where it belongs to one. */
  platformId: z.string().optional(),
  /** The request that caused it, for tracing. */
  requestId: z.string().optional(),
  /**
   * The entity (aggregate) the fact is about and its version: the owner draws the version from a
   * per-entity counter in the transaction that changes the entity and writes the outbox row, so a
   * higher version is a later state (ADR 0010). Absent on events from before versions existed.
   */
  entity: z.object({ id: z.string(), version: z.number().int().positive() }).optional(),
  data: z.record(z.string(), z.unknown()),
});

export type EventEnvelope<D = Record<string, unknown>> = Omit<z.infer<typeof eventEnvelopeSchema>, 'data'> & {
  data: D;
};

export interface EventMeta {
  platformId?: string | undefined;
  requestId?: string | undefined;
  occurredAt: Date;
  id?: string;
}

/** One event type: its routing key, version and the zod schema of its data. */
export interface EventDefinition<S extends z.ZodType<Record<string, unknown>>> {
  readonly type: string;
  readonly version: number;
  readonly data: S;
  /** The field of `data` naming the entity the event versions (ADR 0010), if it versions one. */
  readonly entityKey: string | undefined;
  /** Builds a valid envelope (the data is checked here, at the source). */
  create(data: z.input<S>, meta: EventMeta): EventEnvelope<z.output<S>>;
  /** Validates a received envelope of this type; throws a ZodError when it is not one. */
  parse(envelope: unknown): EventEnvelope<z.output<S>>;
}

/** Any event definition, as the lists of a service's events hold them. */
export type AnyEventDefinition = EventDefinition<z.ZodType<Record<string, unknown>>>;

/**
 * Declares an event type (no side effect): each type is declared once, in its owner's contract,
 * and listed in the owner's `<service>Events`; the package's `allEvents` collects those lists.
 */
export function defineEvent<S extends z.ZodType<Record<string, unknown>>>(
  type: string,
  version: number,
  data: S,
  options: { entity?: string } = {},
): EventDefinition<S> {
  // A type or version the envelope schema refuses would make every event of this type a poison message.
  if (!eventEnvelopeSchema.shape.type.safeParse(type).success) {
    throw new Error(`Event type "${type}" is not <service>.<entity>.<verb> in lowercase`);
  }
  if (!Number.isSafeInteger(version) || version < 1) {
    throw new Error(`Event ${type}: version must be a positive integer, got ${version}`);
  }
  const schema = eventEnvelopeSchema.extend({ type: z.literal(type), data });
  const definition: EventDefinition<S> = {
    type,
    version,
    data,
    entityKey: options.entity,
    create(input, meta) {
      const parsed = data.parse(input);
      const envelope: EventEnvelope<z.output<S>> = {
        id: meta.id ?? newId('evt'),
        type,
        version,
        occurredAt: meta.occurredAt.toISOString(),
        data: parsed,
      };
      if (meta.platformId !== undefined) envelope.platformId = meta.platformId;
      if (meta.requestId !== undefined) envelope.requestId = meta.requestId;
      // The envelope fields come from the caller too (an explicit id, the clock's date): check them here, at the source.
      eventEnvelopeSchema.parse(envelope);
      return envelope;
    },
    parse(envelope) {
      return schema.parse(envelope) as EventEnvelope<z.output<S>>;
    },
  };
  return definition;
}

/**
 * The version an event carries for its entity; 0 for an event written before versions existed,
 * so that every versioned event is newer than every unversioned one (ADR 0010).
 */
export function entityVersionOf(envelope: Pick<EventEnvelope, 'entity'>): number {
  return envelope.entity?.version ?? 0;
}
