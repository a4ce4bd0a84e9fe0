import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Counter, Histogram, Registry } from 'prom-client';
import { randomBase62 } from '@svc/ids';
import { withRequestContext, type Logger } from '@svc/logger';
import { openSpan, SpanKind, type OpenSpan } from '@svc/telemetry';
import { AppError } from '@svc/errors';
import { errorAnswerOf } from './error.middleware';
import { BODYLESS_METHODS, bodyPolicyErrorOf, checkJsonBody, hasBody } from './json-body.middleware';
import { httpMetricsOn } from './http-metrics.middleware';
import { saneRequestId, type RequestFacts } from './request-context.middleware';
import { UNMATCHED_ROUTE } from './route-names';

// nginx's convention for "the client went away before the answer was sent".
const CLIENT_CLOSED_STATUS = 499;
// Label sets are bounded by the declared routes, the methods and the statuses; a client inventing
// methods could still grow them, so the cache starts over past this size.
const MAX_CACHED_LABEL_SETS = 2000;

/**
 * One request served without express (the gateway's public path, ADR 0041): the same request id,
 * logging context, span, metrics and access line as the express middleware give a request, set
 * up in one pass with one `close` listener.
 */
export interface Exchange {
  readonly requestId: string;
  /** What the metrics, the span and the access line will say (the operation, the platform, the error code). */
  readonly facts: RequestFacts;
  /** Headers every answer of this exchange carries (X-Request-Id; Connection: close while stopping). */
  readonly headers: Record<string, string>;
  /** Runs `fn` in the request's logging context and span: log lines and outgoing calls carry them. */
  run<T>(fn: () => T): T;
  /** Called once the exchange is over, with the status logged (499 when the client left first). */
  whenOver(fn: (status: number) => void): void;
  /**
   * Answers `status` with `body` and the exchange's headers, then each set of `headers` in turn.
   * The sets must not name a header twice: they are written as they are, not merged.
   */
  send(status: number, headers: readonly Record<string, string>[], body: Buffer | string): void;
  /** Answers an error the way the express error handler does, with `headers` on top (rate, security). */
  fail(err: unknown, headers: Record<string, string>): void;
}

export interface ExchangeKit {
  begin(req: IncomingMessage, res: ServerResponse): Exchange;
  /**
   * The body's bytes, read once, under the JSON body policy of every service (415 for another media
   * type, a charset or an encoding; 413 over the limit, before reading when Content-Length says so);
   * undefined for GET, HEAD and OPTIONS and for a request without a body. Checked as body-parser
   * checks it (400 for malformed JSON or a body nested too deep), but kept as the bytes received.
   */
  readBody(req: IncomingMessage): Promise<Buffer | undefined>;
}

/** What the kit needs of its service: the same registry, logger and limits the express stack has. */
export interface ExchangeKitOptions {
  service: string;
  registry: Registry;
  logger: Logger;
  tooLargeMessage: string;
  /** The JSON limit in bytes ('1mb': 1,048,576). */
  bodyLimitBytes: number;
  isStopping(): boolean;
}

interface LabelledSeries {
  requests: ReturnType<Counter<'method' | 'route' | 'status'>['labels']>;
  duration: ReturnType<Histogram<'method' | 'route' | 'status'>['labels']>;
}

/**
 * Builds exchanges for a service's own fast path. The metrics are the series of the express
 * middleware (`http_requests_total`, `http_request_duration_seconds`), their label sets cached.
 */
export function exchangeKit(options: ExchangeKitOptions): ExchangeKit {
  const { logger } = options;
  const { requests, duration } = httpMetricsOn(options.registry);
  const series = new Map<string, LabelledSeries>();
  const seriesOf = (method: string, route: string, status: number): LabelledSeries => {
    const key = `${method} ${route} ${status}`;
    let found = series.get(key);
    if (found === undefined) {
      if (series.size >= MAX_CACHED_LABEL_SETS) series.clear();
      const labels = { method, route, status: String(status) };
      found = { requests: requests.labels(labels), duration: duration.labels(labels) };
      series.set(key, found);
    }
    return found;
  };
  const logs = logger.isLevelEnabled('info');
  const scope = `svc.${options.service}`;

  const tooLarge = (): AppError => new AppError('VALIDATION_ERROR', options.tooLargeMessage, { status: 413 });

  return {
    readBody(req) {
      const refused = bodyPolicyErrorOf(req);
      if (refused !== undefined) return Promise.reject(refused);
      if (BODYLESS_METHODS.has(req.method ?? 'GET') || !hasBody(req)) return Promise.resolve(undefined);
      if (Number(req.headers['content-length'] ?? 0) > options.bodyLimitBytes)
        return Promise.reject(tooLarge());
      return new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const onData = (chunk: Buffer): void => {
          size += chunk.length;
          if (size > options.bodyLimitBytes) {
            req.off('data', onData);
            req.off('end', onEnd);
            // The rest is read and dropped, so that the answer can still be sent on this connection.
            req.resume();
            reject(tooLarge());
            return;
          }
          chunks.push(chunk);
        };
        const onEnd = (): void => {
          const raw = Buffer.concat(chunks, size);
          try {
            checkJsonBody(raw);
            resolve(raw);
          } catch (err) {
            reject(err);
          }
        };
        req.on('data', onData);
        req.once('end', onEnd);
        req.once('error', reject);
      });
    },

    begin(req, res) {
      const started = performance.now();
      const method = req.method ?? 'GET';
      const given = req.headers['x-request-id'];
      const requestId = typeof given === 'string' && saneRequestId(given) ? given : randomBase62(20);
      const headers: Record<string, string> = { 'X-Request-Id': requestId };
      // A request arriving while draining must not keep its connection alive past the stop.
      if (options.isStopping()) headers.Connection = 'close';
      const facts: RequestFacts = {};
      const context = { requestId };
      // The public edge: a new trace, never the caller's (it must not pick our ids nor force sampling).
      const span: OpenSpan | undefined = openSpan(scope, method, {
        kind: SpanKind.SERVER,
        parent: null,
        attributes: {
          'http.request.method': method,
          'url.path': pathOf(req.url),
          'svc.service': options.service,
        },
      });
      if (span !== undefined) facts.traceId = span.span.spanContext().traceId;
      let over: ((status: number) => void) | undefined;

      res.once('close', () => {
        const status = res.writableFinished ? res.statusCode : CLIENT_CLOSED_STATUS;
        const route = facts.route ?? UNMATCHED_ROUTE;
        const seconds = (performance.now() - started) / 1000;
        const labelled = seriesOf(method, route, status);
        labelled.requests.inc();
        labelled.duration.observe(seconds);
        if (span !== undefined) {
          span.span.updateName(`${method} ${route}`);
          span.span.setAttributes({
            'http.route': route,
            'http.response.status_code': status,
            'svc.request_id': requestId,
            ...(facts.platformId === undefined ? {} : { 'svc.platform_id': facts.platformId }),
            ...(facts.errorCode === undefined ? {} : { 'error.type': facts.errorCode }),
          });
          span.end(status >= 500 ? new Error(`HTTP ${status}`) : undefined);
        }
        if (logs) {
          const line = {
            requestId,
            method,
            route,
            status,
            durationMs: Math.round(seconds * 1000),
            ...(facts.platformId === undefined ? {} : { platformId: facts.platformId }),
            ...(facts.errorCode === undefined ? {} : { code: facts.errorCode }),
            ...(facts.traceId === undefined ? {} : { traceId: facts.traceId }),
          };
          if (status >= 500) logger.error(line, 'request failed');
          else logger.info(line, 'request completed');
        }
        over?.(status);
      });

      const send = (status: number, sets: readonly Record<string, string>[], body: Buffer | string): void => {
        const bytes = typeof body === 'string' ? Buffer.from(body) : body;
        // One flat list (name, value, name, value…): node writes it without building a header map.
        const flat: string[] = [];
        for (const set of [headers, ...sets]) {
          for (const [name, value] of Object.entries(set)) flat.push(name, value);
        }
        if (status !== 204 && status !== 304) flat.push('Content-Length', String(bytes.length));
        res.writeHead(status, flat);
        res.end(bytes);
      };

      return {
        requestId,
        facts,
        headers,
        run: (fn) => withRequestContext(context, () => (span === undefined ? fn() : span.run(fn))),
        whenOver: (fn) => {
          over = fn;
        },
        send,
        fail: (err, extra) => {
          if (res.headersSent) {
            logger.error({ err }, 'Error after the response had started');
            res.destroy();
            return;
          }
          const answer = errorAnswerOf(
            err,
            logger,
            { method, url: req.url ?? '', requestId },
            options.tooLargeMessage,
          );
          facts.errorCode = answer.code;
          send(
            answer.status,
            [{ ...extra, ...answer.headers, 'Content-Type': 'application/json; charset=utf-8' }],
            JSON.stringify(answer.body),
          );
        },
      };
    },
  };
}

/** The path of a request target, without its query. */
export function pathOf(url: string | undefined): string {
  if (url === undefined) return '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
