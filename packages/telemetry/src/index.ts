import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapGetter,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-node';

export { SpanKind, type Span } from '@opentelemetry/api';
/** Tests: collect finished spans in memory (`startTelemetry({ exporter: new InMemorySpanExporter() })`). */
export { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

/**
 * W3C trace context as headers (`traceparent`, and `tracestate` when there is one): what an HTTP
 * call, a bus message, an outbox row and a webhook delivery row carry from one step to the next.
 */
export type TraceCarrier = Record<string, string>;

export interface TelemetryOptions {
  /** `service.name` of the spans (the embedded default is one process: `embedded`). */
  serviceName: string;
  /**
   * OTEL_EXPORTER_OTLP_ENDPOINT: the collector's OTLP/HTTP base URL (`http://otel-collector:4318`);
   * spans go to `<endpoint>/v1/traces`. Unset (and no `exporter`): tracing stays off.
   */
  otlpEndpoint?: string | undefined;
  /** OTEL_TRACES_SAMPLER_ARG: the share of new traces recorded (default 1); a sampled caller stays sampled. */
  sampleRatio?: number | undefined;
  /** Tests: spans go here, one at a time, instead of OTLP. */
  exporter?: SpanExporter;
}

export interface Telemetry {
  /** True when spans are recorded and trace context propagated. */
  readonly enabled: boolean;
  /** Exports what is buffered and turns tracing off again. */
  shutdown(): Promise<void>;
}

// One provider per process: the embedded default runs every service in one process, and the
// OpenTelemetry API has one global tracer provider, propagator and context manager.
let provider: NodeTracerProvider | undefined;

const OFF: Telemetry = { enabled: false, shutdown: async () => undefined };

/**
 * Turns tracing on when an OTLP endpoint (or a test exporter) is given; otherwise changes nothing,
 * and every helper below returns at its first line (no span, no context switch, no header).
 * A second call while tracing is on is a no-op (several services in one process share it).
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  const endpoint = options.otlpEndpoint?.replace(/\/+$/, '');
  if ((endpoint === undefined || endpoint === '') && options.exporter === undefined) return OFF;
  if (provider !== undefined) return { enabled: true, shutdown: async () => undefined };
  const processor =
    options.exporter !== undefined
      ? new SimpleSpanProcessor(options.exporter)
      : new BatchSpanProcessor(new OTLPTraceExporter({ url: `${endpoint}/v1/traces` }));
  const created = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(options.sampleRatio ?? 1) }),
    spanProcessors: [processor],
  });
  created.register({ propagator: new W3CTraceContextPropagator() });
  provider = created;
  return {
    enabled: true,
    shutdown: async () => {
      if (provider !== created) return;
      provider = undefined;
      await created.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/** True while a tracer provider is registered (OTLP configured, or a test exporter). */
export function tracingEnabled(): boolean {
  return provider !== undefined;
}

// Header values off the wire: strings, string arrays (node's http), Buffers (AMQP headers).
const headerGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key] ?? carrier[key.toLowerCase()];
    if (typeof value === 'string') return value;
    if (Array.isArray(value)) return value.map(String);
    if (Buffer.isBuffer(value)) return value.toString('utf8');
    return undefined;
  },
};

/** The active trace context as W3C headers; undefined when tracing is off or nothing is traced. */
export function currentTraceCarrier(): TraceCarrier | undefined {
  if (provider === undefined) return undefined;
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent === undefined ? undefined : carrier;
}

/** Adds the active trace context (`traceparent`, `tracestate`) to outgoing headers. */
export function injectTraceContext(headers: Record<string, string>): void {
  if (provider === undefined) return;
  propagation.inject(context.active(), headers);
}

/** The trace id of the active span, for log lines; undefined when tracing is off. */
export function currentTraceId(): string | undefined {
  if (provider === undefined) return undefined;
  const span = trace.getActiveSpan();
  return span === undefined ? undefined : span.spanContext().traceId;
}

export interface SpanOptions {
  kind: SpanKind;
  attributes?: Attributes;
  /**
   * Where the span hangs: `active` (default) under the current span; a carrier (headers, an
   * outbox or delivery row's trace context) under the span it names, or a new trace when it names
   * none (a consumer never joins whatever context happened to be active).
   */
  parent?: 'active' | Record<string, unknown> | null;
}

function parentContext(parent: SpanOptions['parent']): Context {
  if (parent === undefined || parent === 'active') return context.active();
  if (parent === null) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, parent, headerGetter);
}

function fail(span: Span, err: unknown): void {
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

/**
 * Runs `fn` inside a new span (ended when `fn` settles; a rejection marks it failed). With
 * tracing off, runs `fn` as is and hands it no span.
 */
export function inSpan<T>(
  scope: string,
  name: string,
  options: SpanOptions,
  fn: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (provider === undefined) return fn(undefined);
  const parent = parentContext(options.parent);
  const span = trace
    .getTracer(scope)
    .startSpan(
      name,
      { kind: options.kind, ...(options.attributes === undefined ? {} : { attributes: options.attributes }) },
      parent,
    );
  return context.with(trace.setSpan(parent, span), async () => {
    try {
      return await fn(span);
    } catch (err) {
      fail(span, err);
      throw err;
    } finally {
      span.end();
    }
  });
}

/** A span whose end the caller decides (an HTTP server request ends when its response closes). */
export interface OpenSpan {
  span: Span;
  /** Runs `fn` with this span active (its async continuations too). */
  run<T>(fn: () => T): T;
  /** Marks it failed when `error`, then ends it. */
  end(error?: unknown): void;
}

/** Starts a span the caller ends; undefined when tracing is off. */
export function openSpan(scope: string, name: string, options: SpanOptions): OpenSpan | undefined {
  if (provider === undefined) return undefined;
  const parent = parentContext(options.parent);
  const span = trace
    .getTracer(scope)
    .startSpan(
      name,
      { kind: options.kind, ...(options.attributes === undefined ? {} : { attributes: options.attributes }) },
      parent,
    );
  const active = trace.setSpan(parent, span);
  return {
    span,
    run: (fn) => context.with(active, fn),
    end: (error) => {
      if (error !== undefined) fail(span, error);
      span.end();
    },
  };
}

/** Marks a span failed without throwing (an HTTP 5xx answer, a failed webhook attempt). */
export function markFailed(span: Span | undefined, message: string): void {
  span?.setStatus({ code: SpanStatusCode.ERROR, message });
}
