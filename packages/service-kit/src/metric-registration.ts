import {
  Counter,
  Gauge,
  Histogram,
  type CounterConfiguration,
  type GaugeConfiguration,
  type HistogramConfiguration,
  type Registry,
} from 'prom-client';

// Several HTTP clients (or several services of the embedded process) may share one registry;
// prom-client throws on a second registration of a name, so each helper reuses what is there.

/** The counter `config.name` of `registry`, created on first use. */
export function counterOn<L extends string>(registry: Registry, config: CounterConfiguration<L>): Counter<L> {
  const existing = registry.getSingleMetric(config.name);
  if (existing instanceof Counter) return existing as Counter<L>;
  if (existing !== undefined)
    throw new TypeError(`Metric ${config.name} is already registered with another type`);
  return new Counter({ ...config, registers: [registry] });
}

/** The histogram `config.name` of `registry`, created on first use. */
export function histogramOn<L extends string>(
  registry: Registry,
  config: HistogramConfiguration<L>,
): Histogram<L> {
  const existing = registry.getSingleMetric(config.name);
  if (existing instanceof Histogram) return existing as Histogram<L>;
  if (existing !== undefined)
    throw new TypeError(`Metric ${config.name} is already registered with another type`);
  return new Histogram({ ...config, registers: [registry] });
}

/** The gauge `config.name` of `registry`, created on first use. */
export function gaugeOn<L extends string>(registry: Registry, config: GaugeConfiguration<L>): Gauge<L> {
  const existing = registry.getSingleMetric(config.name);
  if (existing instanceof Gauge) return existing as Gauge<L>;
  if (existing !== undefined)
    throw new TypeError(`Metric ${config.name} is already registered with another type`);
  return new Gauge({ ...config, registers: [registry] });
}
