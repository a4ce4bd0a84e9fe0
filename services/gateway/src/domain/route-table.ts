import type { Operation, RateBucket, ServiceName } from '@svc/contracts';

/** A public route the gateway forwards to the service that owns it. */
export interface Route {
  id: string;
  method: string;
  path: string;
  service: ServiceName;
  upstreamPath?: string;
  bucket?: RateBucket;
  sandboxOnly?: boolean;
  /** `operator`: reached through /admin with the operator token, never with an API key. */
  auth?: 'key' | 'operator';
  /** The budget for the owning service's answer; default: the gateway's UPSTREAM_TIMEOUT_MS. */
  timeoutMs?: number;
}

export interface MatchedRoute {
  route: Route;
  params: Record<string, string>;
  /** The path to call on the owning service. */
  upstreamPath: string;
}

interface Compiled {
  route: Route;
  pattern: RegExp;
  names: string[];
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
  return { route, pattern: new RegExp(`^${source}/?$`), names };
}

/** The routes of the declared operations that another service owns. */
export function routesFrom(operations: readonly Operation[]): Route[] {
  return operations
    .filter((op) => op.service !== 'gateway')
    .map((op) => ({
      id: op.id,
      method: op.method.toUpperCase(),
      path: op.path,
      service: op.service,
      ...(op.upstreamPath === undefined ? {} : { upstreamPath: op.upstreamPath }),
      ...(op.bucket === undefined ? {} : { bucket: op.bucket }),
      ...(op.sandboxOnly === undefined ? {} : { sandboxOnly: op.sandboxOnly }),
      ...(op.auth === undefined ? {} : { auth: op.auth }),
      ...(op.timeoutMs === undefined ? {} : { timeoutMs: op.timeoutMs }),
    }));
}

/**
 * Matches method + path to a route. Static segments win over parameters, so `/licenses/request`
 * is never taken for `/licenses/:id`.
 */
export class RouteTable {
  private readonly compiled: Compiled[];

  constructor(routes: Route[]) {
    // More static segments first: the most specific route wins.
    const staticCount = (path: string) =>
      path.split('/').filter((s) => s !== '' && !s.startsWith(':')).length;
    this.compiled = routes.map(compile).sort((a, b) => staticCount(b.route.path) - staticCount(a.route.path));
  }

  match(method: string, path: string): MatchedRoute | null {
    for (const entry of this.compiled) {
      if (entry.route.method !== method) continue;
      const found = entry.pattern.exec(path);
      if (found === null) continue;
      const params: Record<string, string> = {};
      entry.names.forEach((name, index) => {
        params[name] = decodeURIComponent(found[index + 1] ?? '');
      });
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

  /** True when some route has this path with another method (for a clear 404 message). */
  knowsPath(path: string): boolean {
    return this.compiled.some((entry) => entry.pattern.test(path));
  }
}
