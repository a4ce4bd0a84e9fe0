import type { RequestHandler, Router } from 'express';
import helmet, { type HelmetOptions } from 'helmet';

// Security headers on every answer of the gateway (issue #30: a page of another site framed the
// dashboard's API-keys page and one click revoked a production key). Mounted first of the routes
// that run before the body is read, so 401, 413 and 429 answers carry them too.

const ONE_YEAR_S = 365 * 24 * 60 * 60;

// What every answer shares: no framing by anyone, no MIME sniffing, no Referer sent on.
// HSTS is set below, and only on https: over plain http it means nothing to a browser, and a
// gateway reached by http on a LAN name would pin that name to https for a year.
const common: HelmetOptions = {
  xFrameOptions: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
  strictTransportSecurity: false,
};

/**
 * The dashboard's pages and assets: scripts and styles from the gateway's own files only (the
 * Vite build has no inline script), calls to the same origin. Pictures may come from anywhere:
 * a claim's reference pictures are URLs on the platforms' own sites.
 */
export const DASHBOARD_CSP: Record<string, string[]> = {
  'default-src': ["'self'"],
  'script-src': ["'self'"],
  'style-src': ["'self'"],
  'img-src': ["'self'", 'data:', 'blob:', '*'],
  'font-src': ["'self'"],
  'connect-src': ["'self'"],
  'object-src': ["'none'"],
  'base-uri': ["'none'"],
  'form-action': ["'self'"],
  'frame-ancestors': ["'none'"],
};

/**
 * The API reference at /docs (Redoc): the dashboard's policy, with two loosenings Redoc needs.
 * Its styles are injected at run time (styled-components), and its search runs in a worker made
 * from a blob. Nothing of another host: the document and the bundle are the gateway's.
 */
export const DOCS_CSP: Record<string, string[]> = {
  ...DASHBOARD_CSP,
  'style-src': ["'self'", "'unsafe-inline'"],
  'img-src': ["'self'", 'data:'],
  'worker-src': ["'self'", 'blob:'],
};

/** The API's answers (JSON, pictures): nothing in them may load, run or be framed. */
export const API_CSP: Record<string, string[]> = {
  'default-src': ["'none'"],
  'frame-ancestors': ["'none'"],
};

const dashboardHeaders = helmet({
  ...common,
  contentSecurityPolicy: { useDefaults: false, directives: DASHBOARD_CSP },
});

const docsHeaders = helmet({
  ...common,
  contentSecurityPolicy: { useDefaults: false, directives: DOCS_CSP },
});

const apiHeaders = helmet({
  ...common,
  contentSecurityPolicy: { useDefaults: false, directives: API_CSP },
  // An uploaded picture's URL is fetched by other services and may be shown by the platforms' pages.
  crossOriginResourcePolicy: { policy: 'cross-origin' },
});

const hsts = helmet.strictTransportSecurity({ maxAge: ONE_YEAR_S, includeSubDomains: true });

/** The dashboard's HTML and assets: not its JSON API, nor the uploaded pictures (shown by any page). */
function isDashboardPage(path: string): boolean {
  return (
    (path === '/dashboard' || path.startsWith('/dashboard/')) &&
    !path.startsWith('/dashboard/api/') &&
    !path.startsWith('/dashboard/uploads/')
  );
}

/** Sets the headers of every answer; HSTS only when the request came over https (req.secure, trust proxy). */
export const securityHeaders: RequestHandler = (req, res, next) => {
  const headers = isDashboardPage(req.path)
    ? dashboardHeaders
    : req.path === '/docs' || req.path.startsWith('/docs/')
      ? docsHeaders
      : apiHeaders;
  headers(req, res, (err?: unknown) => {
    if (err !== undefined && err !== null) {
      next(err);
      return;
    }
    if (req.secure) hsts(req, res, next);
    else next();
  });
};

/** Mounts the headers on a router that runs before every route of the gateway. */
export function securityHeaderRoutes(router: Router): void {
  router.use(securityHeaders);
}

/** The API's security headers, plain and over https (HSTS added): the same helmet sets, taken once. */
export interface ApiHeaderSets {
  plain: Record<string, string>;
  secure: Record<string, string>;
}

/**
 * What `securityHeaders` sets on an API answer, read once from helmet itself: the public path that
 * answers without express (ADR 0041) puts these on every answer without running helmet per request.
 */
export function apiHeaderSets(): ApiHeaderSets {
  const capture = (middleware: RequestHandler): Record<string, string> => {
    const headers: Record<string, string> = {};
    const res = {
      setHeader: (name: string, value: string | number | readonly string[]) => {
        headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
      },
      removeHeader: (name: string) => {
        delete headers[name];
      },
    };
    middleware({} as never, res as never, () => undefined);
    return headers;
  };
  const plain = capture(apiHeaders);
  return { plain, secure: { ...plain, ...capture(hsts) } };
}
