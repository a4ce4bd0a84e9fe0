import type { Queryable } from '@svc/ports';
import { ManualClock } from '@svc/clock';
import { isAppError } from '@svc/errors';
import { hashApiKey } from '../../src/domain/api-key';
import { authenticateRequest, rateLimitedError } from '../../src/domain/authenticate-request.use-case';
import type { AuthenticatedKey, CountWindows, KeyAuthenticationStore } from '../../src/domain/ports';

const SANDBOX_KEY = 'svc_test_0123456789abcdefghijklmnopqrstuv';
const LIVE_KEY = 'svc_live_0123456789abcdefghijklmnopqrstuv';

// The store is a stand-in: the database it would be handed is never used.
const noDatabase = { query: () => Promise.reject(new Error('queried')) } as unknown as Queryable;

function keyRecord(overrides: Partial<AuthenticatedKey> = {}): AuthenticatedKey {
  return {
    keyId: 'key_1',
    keyHash: hashApiKey(SANDBOX_KEY),
    platformId: 'plat_1',
    environment: 'sandbox',
    budgetId: 'key_1',
    expiresAt: null,
    revokedAt: null,
    plan: 'sandbox',
    platformName: 'Test platform',
    domain: 'example.test',
    storedLimits: null,
    scope: 'full',
    minuteCount: 1,
    dayCount: 1,
    extraCount: null,
    ...overrides,
  };
}

function storeAnswering(
  found: AuthenticatedKey | null,
): KeyAuthenticationStore & { windows: CountWindows[] } {
  const windows: CountWindows[] = [];
  return {
    windows,
    authenticateAndCount: async (_q, _hash, _now, _environment, counted) => {
      windows.push(counted);
      return found;
    },
    purgeCounters: async () => 0,
  };
}

const clock = new ManualClock(new Date('2026-11-27T10:00:30.000Z'));

async function refusal(
  store: KeyAuthenticationStore,
  authorization: string | undefined,
  deploymentEnvironment: 'sandbox' | 'production' = 'sandbox',
): Promise<{ code: string; message: string }> {
  try {
    await authenticateRequest({ db: noDatabase, store, clock, deploymentEnvironment }, { authorization });
  } catch (err) {
    if (isAppError(err)) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('the request was not refused');
}

describe('authenticating a public request', () => {
  it('when no key, a malformed key or a key of the other environment is sent, then it is refused before the store is asked', async () => {
    const store = storeAnswering(keyRecord());
    expect(await refusal(store, undefined)).toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'Missing API key',
    });
    expect(await refusal(store, 'Bearer not-a-key')).toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'Malformed API key',
    });
    expect(await refusal(store, `Bearer ${LIVE_KEY}`)).toMatchObject({ code: 'WRONG_ENVIRONMENT' });
    expect(await refusal(store, `Bearer ${SANDBOX_KEY}`, 'production')).toMatchObject({
      code: 'WRONG_ENVIRONMENT',
    });
    expect(store.windows).toHaveLength(0);
  });

  it('when the key is unknown, stored with another hash, of the other environment, revoked or expired, then each has its own refusal', async () => {
    const now = clock.now();
    expect((await refusal(storeAnswering(null), `Bearer ${SANDBOX_KEY}`)).code).toBe('UNAUTHORIZED');
    expect(
      (
        await refusal(
          storeAnswering(keyRecord({ keyHash: hashApiKey(`${SANDBOX_KEY}x`) })),
          `Bearer ${SANDBOX_KEY}`,
        )
      ).code,
    ).toBe('UNAUTHORIZED');
    expect(
      (await refusal(storeAnswering(keyRecord({ environment: 'production' })), `Bearer ${SANDBOX_KEY}`)).code,
    ).toBe('WRONG_ENVIRONMENT');
    expect(
      (
        await refusal(
          storeAnswering(keyRecord({ revokedAt: new Date(now.getTime() - 1) })),
          `Bearer ${SANDBOX_KEY}`,
        )
      ).code,
    ).toBe('KEY_REVOKED');
    expect((await refusal(storeAnswering(keyRecord({ expiresAt: now })), `Bearer ${SANDBOX_KEY}`)).code).toBe(
      'KEY_EXPIRED',
    );
  });

  it('when a rotated key is still inside its overlap, then it is accepted and counted in the minute and day windows', async () => {
    const store = storeAnswering(
      keyRecord({ expiresAt: new Date(clock.now().getTime() + 1000), minuteCount: 7 }),
    );

    const auth = await authenticateRequest(
      { db: noDatabase, store, clock, deploymentEnvironment: 'sandbox' },
      { authorization: `Bearer ${SANDBOX_KEY}` },
    );

    expect(auth.caller).toEqual({
      platformId: 'plat_1',
      keyId: 'key_1',
      environment: 'sandbox',
      plan: 'sandbox',
      name: 'Test platform',
      domain: 'example.test',
      scope: 'full',
    });
    expect(auth.rate.allowed).toBe(true);
    expect(auth.rate.headers['X-RateLimit-Remaining']).toBe('53');
    expect(store.windows).toEqual([
      { minuteStart: new Date('2026-11-27T10:00:00.000Z'), dayStart: new Date('2026-11-27T00:00:00.000Z') },
    ]);
  });

  it('when a route has an extra bucket and it is over, then the request is refused with that bucket in the 429', async () => {
    const store = storeAnswering(keyRecord({ extraCount: 11 }));

    const auth = await authenticateRequest(
      { db: noDatabase, store, clock, deploymentEnvironment: 'sandbox' },
      { authorization: `Bearer ${SANDBOX_KEY}`, extraBucket: 'webhook-test' },
    );

    expect(store.windows[0]?.extra).toEqual({
      bucket: 'webhook-test',
      windowStart: new Date('2026-11-27T10:00:00.000Z'),
    });
    expect(auth.rate.allowed).toBe(false);
    const error = rateLimitedError(auth.rate);
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.details).toMatchObject({ limit: 10, remaining: 0 });
    expect(error.headers?.['Retry-After']).toBe(String(auth.rate.refusal?.retryAfter));
  });

  it('when an enterprise platform has agreed limits, then its minute budget is the stored one', async () => {
    const store = storeAnswering(
      keyRecord({ plan: 'enterprise', storedLimits: { perMinute: 20_000 }, minuteCount: 1, dayCount: 1 }),
    );

    const auth = await authenticateRequest(
      { db: noDatabase, store, clock, deploymentEnvironment: 'sandbox' },
      { authorization: `Bearer ${SANDBOX_KEY}` },
    );

    expect(auth.rate.headers['X-RateLimit-Limit']).toBe('20000');
  });

  it('when a refusal has no details of its own, then the 429 still says when to retry', () => {
    const error = rateLimitedError({ allowed: false, headers: { 'X-RateLimit-Limit': '60' } });
    expect(error.headers?.['Retry-After']).toBe('60');
    expect(error.details).toMatchObject({ retryAfter: 60 });
  });
});
