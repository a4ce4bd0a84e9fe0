import type { Clock } from '@svc/clock';
import { AppError } from '@svc/errors';
import type { Queryable } from '@svc/ports';
import type { Environment } from './api-key';
import { adminTokenFingerprint, hashSessionToken, isCrossOrigin, isStateChanging } from './account';
import type { AuthenticatedRequest, ExtraBucket } from './authenticate-request.use-case';
import { EXTRA_BUCKETS } from './plans';
import { sessionBudgetId } from './plan-usage.use-case';
import { decide, windowOf, type BucketState } from './rate-limit';
import type { ActiveSession, RateCounterStore, SessionStore } from './account-ports';

/** What a browser sent that bears on its session. */
export interface SessionCredentials {
  /** The session cookie's value. */
  token: string | undefined;
  method: string;
  /** The X-CSRF-Token header. */
  csrfToken: string | undefined;
  origin: string | undefined;
  host: string | undefined;
  /** A public API request: an operator session is refused there (403) whatever its token. */
  publicApi?: boolean;
}

const SIGN_IN_AGAIN = 'Sign in again at /dashboard/sign-in.';

/**
 * A session proves who is calling: its cookie names a session that has neither ended nor expired,
 * and a call that changes state comes from this origin and carries the session's CSRF token.
 */
export async function authenticateSession(
  deps: { db: Queryable; sessions: SessionStore; clock: Clock; adminToken?: string | undefined },
  input: SessionCredentials,
): Promise<ActiveSession> {
  if (input.token === undefined || input.token === '') {
    throw new AppError('UNAUTHORIZED', 'You are not signed in', { details: SIGN_IN_AGAIN });
  }
  const session = await deps.sessions.findActive(deps.db, hashSessionToken(input.token), deps.clock.now());
  if (session === null) {
    throw new AppError('UNAUTHORIZED', 'Your session has ended', { details: SIGN_IN_AGAIN });
  }
  // An operator session stands in for the ADMIN_TOKEN it was signed in with, and for no other
  // (a public request refuses the operator's session anyway: it reaches the operator API only).
  if (
    session.account.role === 'operator' &&
    !input.publicApi &&
    (deps.adminToken === undefined ||
      session.adminTokenFingerprint !== adminTokenFingerprint(deps.adminToken))
  ) {
    throw new AppError('UNAUTHORIZED', 'Your session has ended', {
      details: `The operator token changed. ${SIGN_IN_AGAIN}`,
    });
  }
  if (isStateChanging(input.method)) {
    if (isCrossOrigin(input.origin, input.host)) {
      throw new AppError('FORBIDDEN', 'Cross-site request refused', {
        details: 'State-changing calls of a session are accepted from the dashboard only.',
      });
    }
    if (input.csrfToken !== session.csrfToken) {
      throw new AppError('FORBIDDEN', 'Missing or wrong CSRF token', {
        details: "Send the session's csrfToken (GET /dashboard/api/session) in X-CSRF-Token.",
      });
    }
  }
  return session;
}

/** A dashboard session's own budget of public calls (docs/spec/contracts.md §17): not the tenant's API limits. */
export interface SessionBudget {
  perMinute: number;
  perDay: number;
}

/** Defaults of DASHBOARD_CALLS_PER_MINUTE and DASHBOARD_CALLS_PER_DAY. */
export const DEFAULT_SESSION_BUDGET: SessionBudget = { perMinute: 300, perDay: 20_000 };

/**
 * A public request made with a session instead of a key (ADR 0024): the account acts as its
 * tenant, exactly as the tenant's key would. It is counted against the session's own budget
 * (docs/spec/contracts.md §17, #30), never the tenant's API limits: a creator reading their boxes does not
 * spend what the platform's integration needs, nor the other way round. A route's extra bucket
 * (expensive work such as checks) is the plan's, counted per account, so that opening sessions
 * does not multiply it. The operator has no tenant.
 */
export async function authenticateSessionRequest(
  deps: {
    db: Queryable;
    sessions: SessionStore;
    counters: RateCounterStore;
    clock: Clock;
    deploymentEnvironment: Environment;
  },
  input: SessionCredentials & { extraBucket?: ExtraBucket | undefined },
  budget: SessionBudget = DEFAULT_SESSION_BUDGET,
): Promise<AuthenticatedRequest> {
  const session = await authenticateSession(deps, { ...input, publicApi: true });
  const platform = session.platform;
  if (platform === null) {
    throw new AppError('FORBIDDEN', "The operator's session reaches the operator API only", {
      details: 'Sign in as a creator or a platform to use the public API.',
    });
  }
  const now = deps.clock.now();
  const own = sessionBudgetId(session.id);
  const minute = windowOf(now, 60);
  const day = windowOf(now, 86_400);
  const extra = input.extraBucket === undefined ? undefined : EXTRA_BUCKETS[input.extraBucket];
  const extraWindow = extra === undefined ? undefined : windowOf(now, extra.windowSeconds);
  const extraBucket = `${input.extraBucket}:${session.account.id}`;
  const buckets = [
    { bucket: `m:${own}`, windowStart: minute.start },
    { bucket: `d:${own}`, windowStart: day.start },
  ];
  if (input.extraBucket !== undefined && extraWindow !== undefined) {
    buckets.push({ bucket: extraBucket, windowStart: extraWindow.start });
  }
  const counts = await deps.counters.increment(deps.db, buckets);
  const others: BucketState[] = [{ limit: budget.perDay, count: counts.get(`d:${own}`) ?? 0, window: day }];
  if (extra !== undefined && extraWindow !== undefined) {
    others.push({ limit: extra.limit, count: counts.get(extraBucket) ?? 0, window: extraWindow });
  }
  const rate = decide(
    now,
    { limit: budget.perMinute, count: counts.get(`m:${own}`) ?? 0, window: minute },
    others,
  );
  return {
    caller: {
      platformId: platform.id,
      keyId: session.account.id,
      environment: deps.deploymentEnvironment,
      plan: platform.plan,
      name: platform.name,
      domain: platform.domain,
      memberRole: session.account.memberRole,
      // A read-only member reaches what a read-only key does (docs/adr/0034).
      ...(session.account.memberRole === 'read_only' ? { scope: 'read_only' as const } : {}),
    },
    rate,
  };
}

/** Sign-out: the session ends at once. */
export async function endSession(
  deps: { db: Queryable; sessions: SessionStore; clock: Clock },
  session: ActiveSession,
): Promise<void> {
  await deps.sessions.end(deps.db, session.id, deps.clock.now());
}
