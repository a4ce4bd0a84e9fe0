import { Counter, Gauge, type Registry } from 'prom-client';

/** The relay's metrics; one set per registry, labelled by relay, shared by every relay on it. */
export interface OutboxMetrics {
  backlog: Gauge<'relay'>;
  published: Counter<'relay'>;
  failures: Counter<'relay'>;
  probeFailures: Counter<'relay'>;
  breakerOpen: Gauge<'relay'>;
}

const byRegistry = new WeakMap<Registry, OutboxMetrics>();

/** The outbox metrics of `registry`, created on first use (several relays, one registration). */
export function outboxMetrics(registry: Registry): OutboxMetrics {
  const existing = byRegistry.get(registry);
  if (existing !== undefined) return existing;
  const metrics: OutboxMetrics = {
    backlog: reuse(
      registry,
      'messaging_outbox_backlog',
      () =>
        new Gauge({
          name: 'messaging_outbox_backlog',
          help: 'Outbox rows not yet published',
          labelNames: ['relay'],
          registers: [registry],
        }),
    ),
    published: reuse(
      registry,
      'messaging_outbox_published_total',
      () =>
        new Counter({
          name: 'messaging_outbox_published_total',
          help: 'Outbox rows published with a broker confirm',
          labelNames: ['relay'],
          registers: [registry],
        }),
    ),
    failures: reuse(
      registry,
      'messaging_outbox_publish_failures_total',
      () =>
        new Counter({
          name: 'messaging_outbox_publish_failures_total',
          help: 'Outbox publish attempts that failed (the row is retried)',
          labelNames: ['relay'],
          registers: [registry],
        }),
    ),
    probeFailures: reuse(
      registry,
      'messaging_outbox_probe_failures_total',
      () =>
        new Counter({
          name: 'messaging_outbox_probe_failures_total',
          help: 'Broker probes that failed before a pass claimed outbox rows (the pass claimed none)',
          labelNames: ['relay'],
          registers: [registry],
        }),
    ),
    breakerOpen: reuse(
      registry,
      'messaging_outbox_breaker_open',
      () =>
        new Gauge({
          name: 'messaging_outbox_breaker_open',
          help: '1 while the publishing circuit breaker is open',
          labelNames: ['relay'],
          registers: [registry],
        }),
    ),
  };
  byRegistry.set(registry, metrics);
  return metrics;
}

/** Another copy of this module (e.g. a second bundle) may have registered the metric already. */
function reuse<M>(registry: Registry, name: string, create: () => M): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? create();
}
