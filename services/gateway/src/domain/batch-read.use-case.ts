import { AppError, isAppError, unavailableFrom } from '@svc/errors';
import type { Clock } from '@svc/clock';
import type { Queryable } from '@svc/ports';
import type { Environment } from './api-key';
import { rateLimitedError } from './authenticate-request.use-case';
import {
  authenticateSessionRequest,
  type SessionBudget,
  type SessionCredentials,
} from './authenticate-session.use-case';
import { dispatchRequest, searchOf } from './dispatch-request.use-case';
import { isPublicPath } from './handle-public-request.use-case';
import type { IdempotencyStore } from './ports';
import type { RateCounterStore, SessionStore } from './account-ports';
import type { MatchedRoute, RouteTable } from './route-table';
import type { UpstreamClient } from './upstream.client';

// A dashboard page's reads in one call (issue #32, "Budgets"; docs/spec/contracts.md §17): each
// read is dispatched exactly as the same GET sent alone with the session would be, to the same
// owner with the same claims; the batch is counted once against the session's own budget.

export interface BatchAnswer {
  status: number;
  retryAfter?: number;
  body: unknown;
}

type Deps = {
  hotPathDb: Queryable;
  sessions: SessionStore;
  counters: RateCounterStore;
  clock: Clock;
  environment: Environment;
  routes: RouteTable;
  upstreams: UpstreamClient;
  idempotency: IdempotencyStore;
  sessionBudget?: SessionBudget | undefined;
};

/** The path part of a read's path and query. */
function pathOf(url: string): string {
  const queryStart = url.indexOf('?');
  return queryStart === -1 ? url : url.slice(0, queryStart);
}

/**
 * Each read's route, or a 400 naming the first read the batch cannot carry: a path outside the
 * public API, or an operation with a rate bucket of its own (counted apart: sent alone). A path
 * of the public API that no GET route serves is that read's 404, as alone.
 */
function routesOf(deps: Pick<Deps, 'routes'>, paths: readonly string[]): (MatchedRoute | null)[] {
  return paths.map((url, index) => {
    const path = pathOf(url);
    const field = `requests.${index}.path`;
    if (!isPublicPath(path)) {
      throw new AppError('VALIDATION_ERROR', `requests[${index}] is not a path of the public API`, {
        details: {
          fields: [
            {
              field,
              message: 'expected a path under /v1/svc, /identity, /licensing, /revenue or /enforcement',
            },
          ],
        },
      });
    }
    const matched = deps.routes.match('GET', path);
    if (matched?.route.bucket !== undefined) {
      throw new AppError('VALIDATION_ERROR', `requests[${index}] has a rate bucket of its own`, {
        details: { fields: [{ field, message: 'send this operation alone' }] },
      });
    }
    return matched;
  });
}

/**
 * An error of one read, as its own answer would have carried it. An unexpected one (a bug) fails
 * the batch with 500, as it would have failed the read alone, and is logged by the error handler.
 */
function answerOfError(error: unknown): BatchAnswer {
  const appError = unavailableFrom(error, 1) ?? (isAppError(error) ? error : undefined);
  if (appError === undefined) throw error;
  // A 503 always says when to come back (docs/spec/contracts.md §2), as the error handler does alone.
  const retryAfter = Number(appError.headers['Retry-After'] ?? (appError.status === 503 ? 1 : Number.NaN));
  return {
    status: appError.status,
    ...(Number.isFinite(retryAfter) ? { retryAfter } : {}),
    body: appError.toBody(),
  };
}

function bodyOf(raw: Buffer | string, contentType: string | undefined): unknown {
  const text = typeof raw === 'string' ? raw : raw.toString('utf8');
  if (text === '') return null;
  if (contentType?.includes('json') !== true) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * Authenticates the session (a POST: its CSRF token is checked), counts the batch once against
 * the session's budget (a spent budget refuses it whole, 429 with Retry-After), validates the
 * reads (a bad one: 400, counted like any refused call), then makes every read at once. Returns the budget's headers and the answers in the order of the reads.
 */
export async function batchRead(
  deps: Deps,
  input: {
    session: SessionCredentials;
    /** The reads of the request's body; throws its 400 (called once the session is known). */
    readPaths: () => readonly string[];
    requestId: string;
  },
): Promise<{ rateHeaders: Record<string, string>; answers: BatchAnswer[] }> {
  const auth = await authenticateSessionRequest(
    {
      db: deps.hotPathDb,
      sessions: deps.sessions,
      counters: deps.counters,
      clock: deps.clock,
      deploymentEnvironment: deps.environment,
    },
    input.session,
    deps.sessionBudget,
  );
  if (!auth.rate.allowed) throw rateLimitedError(auth.rate);
  // Who asks is known before what is asked is judged: a stranger gets 401, never a 400 about paths.
  const paths = input.readPaths();
  const routes = routesOf(deps, paths);
  const answers = await Promise.all(
    paths.map(async (url, index): Promise<BatchAnswer> => {
      try {
        const result = await dispatchRequest(deps, {
          caller: auth.caller,
          matched: routes[index] ?? null,
          method: 'GET',
          url,
          search: searchOf(url),
          body: undefined,
          idempotencyKey: undefined,
          requestId: input.requestId,
        });
        const retryAfter = Number(result.headers['retry-after'] ?? Number.NaN);
        return {
          status: result.status,
          ...(Number.isFinite(retryAfter) ? { retryAfter } : {}),
          body: bodyOf(result.body, result.headers['content-type']),
        };
      } catch (error) {
        return answerOfError(error);
      }
    }),
  );
  return { rateHeaders: auth.rate.headers, answers };
}
