import { z } from 'zod';
import { newId } from '@svc/ids';

/** Every event on the bus: a past-tense fact in one envelope (architecture.md, Messages). */
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
  /** Builds a valid envelope (the data is checked here, at the source). */
  create(data: z.input<S>, meta: EventMeta): EventEnvelope<z.output<S>>;
  /** Validates a received envelope of this type; throws a ZodError when it is not one. */
  parse(envelope: unknown): EventEnvelope<z.output<S>>;
}

const registry = new Map<string, EventDefinition<z.ZodType<Record<string, unknown>>>>();

/** Declares an event type. Each type is declared once, in this package. */
export function defineEvent<S extends z.ZodType<Record<string, unknown>>>(
  type: string,
  version: number,
  data: S,
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
  if (registry.has(type)) throw new Error(`Event ${type} is declared twice`);
  registry.set(type, definition as unknown as EventDefinition<z.ZodType<Record<string, unknown>>>);
  return definition;
}

/** Every declared event type, for the catalogue and the webhook mapping tests. */
export function declaredEvents(): EventDefinition<z.ZodType<Record<string, unknown>>>[] {
  return [...registry.values()];
}
