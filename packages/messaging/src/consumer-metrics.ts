import { Counter, Gauge, type Registry } from 'prom-client';
import type { MessageBus } from './message-bus';

interface Watched {
  bus: MessageBus;
  queue: string;
}

// A registry may serve several services (the embedded process shares one): each registry gets one
// set of metrics that reads every queue watched on it.
const watchedByRegistry = new WeakMap<Registry, Watched[]>();

// A scrape must answer even while the broker is down: a depth that does not come back in time is
// left out of that scrape.
const DEPTH_TIMEOUT_MS = 1000;

/**
 * Registers on `registry` the consumer metrics of `queues` read from `bus` at scrape time:
 * `messaging_dead_letters{queue}` (depth of the dead-letter queue),
 * `messaging_consumer_redeliveries_total{queue,reason}` (reason `transient` or `failure`) and
 * `messaging_dead_lettered_total{queue}` (moved to the dead-letter queue by this process).
 */
export function watchConsumers(registry: Registry, bus: MessageBus, queues: readonly string[]): void {
  let watched = watchedByRegistry.get(registry);
  if (watched === undefined) {
    watched = [];
    watchedByRegistry.set(registry, watched);
    register(registry, watched);
  }
  for (const queue of queues) {
    if (!watched.some((w) => w.bus === bus && w.queue === queue)) watched.push({ bus, queue });
  }
}

function register(registry: Registry, watched: Watched[]): void {
  new Gauge({
    name: 'messaging_dead_letters',
    help: 'Messages waiting in the dead-letter queue of each consumer queue',
    labelNames: ['queue'],
    registers: [registry],
    async collect() {
      this.reset();
      const depths = await Promise.all(
        watched.map(({ bus, queue }) => withTimeout(bus.deadLetterCount(queue))),
      );
      for (const [index, depth] of depths.entries()) {
        const queue = watched[index]?.queue;
        if (queue !== undefined && depth !== undefined) this.set({ queue }, depth);
      }
    },
  });
  new Counter({
    name: 'messaging_consumer_redeliveries_total',
    help: 'Handler runs retried, by reason: transient (a dependency unavailable, not counted toward the limit) or failure',
    labelNames: ['queue', 'reason'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { bus, queue } of watched) {
        const stats = bus.consumerStats(queue);
        this.inc({ queue, reason: 'transient' }, stats.transientRetries);
        this.inc({ queue, reason: 'failure' }, stats.failedRetries);
      }
    },
  });
  new Counter({
    name: 'messaging_dead_lettered_total',
    help: 'Messages this process moved to a dead-letter queue',
    labelNames: ['queue'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { bus, queue } of watched) this.inc({ queue }, bus.consumerStats(queue).deadLettered);
    },
  });
}

async function withTimeout(depth: Promise<number>): Promise<number | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), DEPTH_TIMEOUT_MS);
  });
  try {
    return await Promise.race([depth.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}
