import { z } from 'zod';
import { idSchema, type Operation, type RateBucket, type ServiceName } from '@svc/contracts/common';
import { AppError, validationErrorFrom } from '@svc/errors';

/** A public route the gateway forwards to the service that owns it. */
export interface Route {
  id: string;
  method: string;
  path: string;
  service: ServiceName;
  upstreamPath?: string;
  bucket?: RateBucket;
  sandboxOnly?: boolean;
  /** `operator`: reached through /admin with the operator token, never with an API key; `public`: no key (the document). */
  auth?: 'key' | 'operator' | 'public' | 'session';
  /** The budget for the owning service's answer; default: the gateway's UPSTREAM_TIMEOUT_MS. */
  timeoutMs?: number;
  /** The operation's path parameters; default: every parameter is an id. */
  params?: z.ZodType;
}

export interface MatchedRoute {
  route: Route;
  params: Record<string, string>;
  /** The path to call on the owning service. */
  upstreamPath: string;
  /**
   * Why the path parameters are refused (bad percent-encoding, NUL, over-long…): a VALIDATION_ERROR
   * naming each, thrown once the caller is authenticated. The route's service never sees them.
   */
  problem?: AppError;
}

interface Compiled {
  route: Route;
  pattern: RegExp;
  names: string[];
  params: z.ZodType;
}

function compile(route: Route): Compiled {
  const names: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      if (segment.startsWith(':')) {
        names.push(segment.slice(1));
        return '([^/]+)';
      }
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  const params = route.params ?? z.object(Object.fromEntries(names.map((name) => [name, idSchema])));
  return { route, pattern: new RegExp(`^${source}/?$`), names, params };
}

/** `value` percent-decoded, or undefined when it is not valid percent-encoded UTF-8. */
function decode(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

/** The decoded parameters, or the VALIDATION_ERROR that refuses them. */
function readParams(
  entry: Compiled,
  found: RegExpExecArray,
): { params: Record<string, string>; problem?: AppError } {
  const params: Record<string, string> = {};
  const undecodable: string[] = [];
  entry.names.forEach((name, index) => {
    const raw = found[index + 1] ?? '';
    const decoded = decode(raw);
    if (decoded === undefined) undecodable.push(name);
    params[name] = decoded ?? raw;
  });
  if (undecodable.length > 0) {
    const fields = undecodable.map((name) => ({
      field: `path.${name}`,
      message: 'malformed percent-encoding',
    }));
    return {
      params,
      problem: new AppError(
        'VALIDATION_ERROR',
        `Invalid path: ${fields[0]?.field}: malformed percent-encoding`,
        {
          details: { fields },
        },
      ),
    };
  }
  const result = entry.params.safeParse(params);
  return result.success ? { params } : { params, problem: validationErrorFrom(result.error, 'path') };
}

/**
 * The routes of the declared operations. The gateway's own (operator API, the OpenAPI document)
 * are served before dispatch; they are here so that their path parameters are checked too.
 */
export function routesFrom(operations: readonly Operation[]): Route[] {
  return operations.map((op) => ({
    id: op.id,
    method: op.method.toUpperCase(),
    path: op.path,
    service: op.service,
    ...(op.upstreamPath === undefined ? {} : { upstreamPath: op.upstreamPath }),
    ...(op.bucket === undefined ? {} : { bucket: op.bucket }),
    ...(op.sandboxOnly === undefined ? {} : { sandboxOnly: op.sandboxOnly }),
    ...(op.auth === undefined ? {} : { auth: op.auth }),
    ...(op.timeoutMs === undefined ? {} : { timeoutMs: op.timeoutMs }),
    ...(op.request?.params === undefined ? {} : { params: op.request.params }),
  }));
}

/**
 * Matches method + path to a route. Static segments win over parameters, so `/licenses/request`
 * is never taken for `/licenses/:id`.
 */
export class RouteTable {
  private readonly compiled: Compiled[];
  /** Other services' GET operations for anyone (`auth: 'public'`), checked on every request. */
  private readonly anonymous: Compiled[];

  constructor(routes: Route[]) {
    // More static segments first: the most specific route wins.
    const staticCount = (path: string) =>
      path.split('/').filter((s) => s !== '' && !s.startsWith(':')).length;
    this.compiled = routes.map(compile).sort((a, b) => staticCount(b.route.path) - staticCount(a.route.path));
    this.anonymous = this.compiled.filter(
      (entry) =>
        entry.route.auth === 'public' && entry.route.service !== 'gateway' && entry.route.method === 'GET',
    );
  }

  match(method: string, path: string): MatchedRoute | null {
    for (const entry of this.compiled) {
      if (entry.route.method !== method) continue;
      const found = entry.pattern.exec(path);
      if (found === null) continue;
      const { params, problem } = readParams(entry, found);
      if (problem !== undefined) return { route: entry.route, params, upstreamPath: path, problem };
      const upstreamPath =
        entry.route.upstreamPath === undefined
          ? path
          : entry.route.upstreamPath.replace(/:([A-Za-z_]+)/g, (_, name: string) =>
              encodeURIComponent(params[name] ?? ''),
            );
      return { route: entry.route, params, upstreamPath };
    }
    return null;
  }

  /**
   * The route of another service's operation for anyone (a GET or HEAD), else null. Every request
   * asks, so it tries the few such routes first and walks the whole table only when one matches
   * (a more specific route of the table still wins).
   */
  matchAnonymous(method: string, path: string): MatchedRoute | null {
    if (method !== 'GET' && method !== 'HEAD') return null;
    if (!this.anonymous.some((entry) => entry.pattern.test(path))) return null;
    const matched = this.match('GET', path);
    return matched !== null && this.anonymous.some((entry) => entry.route === matched.route) ? matched : null;
  }

  /** True when some route has this path with another method (for a clear 404 message). */
  knowsPath(path: string): boolean {
    return this.compiled.some((entry) => entry.pattern.test(path));
  }
}
