import { newId } from '@svc/ids';
import { ADMIN_TOKEN, startHarness, type Harness } from '../fixtures/gateway-harness';
import { totpCodeAt } from '../fixtures/otp';

// Sign-in security (#30, docs/spec/contracts.md §17): failures counted atomically, per account and
// address, behind a trusted proxy; an attacker elsewhere does not lock the owner out; sessions end
// with a password change, a new admin token, or "sign out everywhere"; TOTP for the operator
// (required) and for accounts (optional, with recovery codes).

const PASSWORD = 'Quiet-Lantern-Orbit-7731';
const NEW_PASSWORD = 'Velvet-Harbour-Compass-5820';

let h: Harness;
beforeAll(async () => {
  // The harness calls from 127.0.0.1: X-Forwarded-For names each test's client.
  h = await startHarness({ env: { TRUST_PROXY: 'loopback' } });
});
afterAll(async () => {
  await h.stop();
});

let n = 0;
const cookieOf = (setCookie: string | null, name = 'svc_session') =>
  `${name}=${new RegExp(`${name}=([^;]+)`).exec(setCookie ?? '')?.[1] ?? ''}`;

/** An account of its own tenant, made in the database (sign-up's e-mail verification is tested apart), signed in. */
async function signUp(harness = h) {
  n += 1;
  const email = `secure${n}@example.com`;
  const { platformId } = await harness.platform('sandbox');
  const ctx = harness.gateway.gateway.context;
  const inserted = await ctx.accounts.insert(
    ctx.db,
    {
      id: newId('acct'),
      email,
      name: `Secure ${n}`,
      role: 'creator',
      platformId,
      memberRole: 'owner',
      createdAt: harness.clock.now(),
    },
    await ctx.passwords.hash(PASSWORD),
  );
  expect(inserted).toBe(true);
  const res = await signIn({ email, password: PASSWORD }, `198.51.100.${n}`, {}, harness);
  expect(res.status).toBe(200);
  return {
    email,
    cookie: cookieOf(res.headers.get('set-cookie')),
    csrf: res.body.data.csrfToken as string,
  };
}

function signIn(
  body: Record<string, unknown>,
  from: string,
  headers: Record<string, string> = {},
  harness = h,
) {
  return harness.call(undefined, 'POST', '/dashboard/api/session', body, {
    'x-forwarded-for': from,
    ...headers,
  });
}

const codeAt = (harness: Harness, secret: string) => totpCodeAt(secret, harness.clock.now());

describe('sign-in throttling', () => {
  it('when 30 wrong passwords for one account arrive at once, then exactly 5 are checked (401) and 25 refused (429)', async () => {
    const { email } = await signUp();
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        signIn({ email, password: `parallel guess ${i}` }, '203.0.113.10'),
      ),
    );
    const statuses = answers.map((a) => a.status);
    expect({
      401: statuses.filter((s) => s === 401).length,
      429: statuses.filter((s) => s === 429).length,
    }).toEqual({
      401: 5,
      429: 25,
    });
    // The owner from another address is not refused.
    expect((await signIn({ email, password: PASSWORD }, '203.0.113.11')).status).toBe(200);
  });

  it('when an attacker at address A fails many times, then A is slowed with Retry-After and the owner at B signs in', async () => {
    const { email } = await signUp();
    for (let i = 0; i < 5; i += 1) {
      expect((await signIn({ email, password: `guess ${i}` }, '203.0.113.20')).status).toBe(401);
    }
    const slowed = await signIn({ email, password: 'guess 6' }, '203.0.113.20');
    expect(slowed.status).toBe(429);
    expect(slowed.body.error.code).toBe('RATE_LIMITED');
    expect(Number(slowed.headers.get('retry-after'))).toBeGreaterThan(0);
    // The RATE_LIMITED details of docs/spec/contracts.md §2, resetAt included.
    expect(slowed.body.error.details).toMatchObject({
      limit: 5,
      remaining: 0,
      resetAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      retryAfter: Number(slowed.headers.get('retry-after')),
    });
    // Even the right password from A waits: the attacker learns nothing there.
    expect((await signIn({ email, password: PASSWORD }, '203.0.113.20')).status).toBe(429);
    const owner = await signIn({ email, password: PASSWORD }, '192.0.2.30');
    expect(owner.status).toBe(200);
  });

  it("when the owner's browser signed in before, then its device cookie gets it in even from the attacker's address", async () => {
    const { email } = await signUp();
    const first = await signIn({ email, password: PASSWORD }, '192.0.2.40');
    const device = cookieOf(first.headers.get('set-cookie'), 'svc_device');
    expect(first.headers.get('set-cookie')).toMatch(/svc_device=dev_[^;]+;.*HttpOnly/);
    for (let i = 0; i < 6; i += 1) await signIn({ email, password: `nat guess ${i}` }, '203.0.113.41');
    expect((await signIn({ email, password: PASSWORD }, '203.0.113.41')).status).toBe(429);
    const withDevice = await signIn({ email, password: PASSWORD }, '203.0.113.41', { cookie: device });
    expect(withDevice.status).toBe(200);
  });

  it('when wrong operator tokens come from address A, then A is slowed and the operator at B still signs in', async () => {
    const operator = (
      body: Record<string, unknown>,
      from: string,
      path = '/dashboard/api/operator-session',
    ) => h.call(undefined, 'POST', path, body, { 'x-forwarded-for': from });
    for (let i = 0; i < 5; i += 1) {
      expect((await operator({ token: `wrong operator token ${i}` }, '203.0.113.90')).status).toBe(401);
    }
    const slowed = await operator({ token: 'wrong operator token 6' }, '203.0.113.90');
    expect(slowed.status).toBe(429);
    expect(Number(slowed.headers.get('retry-after'))).toBeGreaterThan(0);
    const enrolment = await operator(
      { token: ADMIN_TOKEN },
      '192.0.2.91',
      '/dashboard/api/operator-session/totp',
    );
    expect(enrolment.status).toBe(201);
    const signedIn = await operator(
      { token: ADMIN_TOKEN, code: codeAt(h, enrolment.body.data.secret) },
      '192.0.2.91',
    );
    expect(signedIn.status).toBe(200);
  });

  it('when the proxy is trusted, then two clients with different X-Forwarded-For are counted apart', async () => {
    // 20 failures per address across accounts: the 21st from that address is refused, not another's.
    for (let i = 0; i < 20; i += 1) {
      const res = await signIn({ email: `nobody${i}@example.com`, password: 'x' }, '203.0.113.50');
      expect(res.status).toBe(401);
    }
    expect((await signIn({ email: 'nobody99@example.com', password: 'x' }, '203.0.113.50')).status).toBe(429);
    expect((await signIn({ email: 'nobody99@example.com', password: 'x' }, '203.0.113.51')).status).toBe(401);
  });

  it("when no proxy is trusted, then a client's forged X-Forwarded-For is ignored", async () => {
    const untrusted = await startHarness();
    try {
      for (let i = 0; i < 20; i += 1) {
        const res = await signIn(
          { email: `spray${i}@example.com`, password: 'x' },
          `10.9.8.${i}`,
          {},
          untrusted,
        );
        expect(res.status).toBe(401);
      }
      const refused = await signIn(
        { email: 'spray99@example.com', password: 'x' },
        '10.9.9.9',
        {},
        untrusted,
      );
      expect(refused.status).toBe(429);
    } finally {
      await untrusted.stop();
    }
  });
});

describe('sessions', () => {
  it('when the password changes, then the other sessions end and this one stays; the old password no longer signs in', async () => {
    const here = await signUp();
    const elsewhere = await signIn({ email: here.email, password: PASSWORD }, '192.0.2.60');
    const otherCookie = cookieOf(elsewhere.headers.get('set-cookie'));
    const weak = await h.call(
      undefined,
      'POST',
      '/dashboard/api/account/password',
      { currentPassword: PASSWORD, newPassword: 'password1234' },
      { cookie: here.cookie, 'x-csrf-token': here.csrf },
    );
    expect(weak.status).toBe(400);
    expect(weak.body.error.details.fields[0].field).toBe('newPassword');
    const wrong = await h.call(
      undefined,
      'POST',
      '/dashboard/api/account/password',
      { currentPassword: 'not it at all', newPassword: NEW_PASSWORD },
      { cookie: here.cookie, 'x-csrf-token': here.csrf },
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details.fields).toEqual([
      { field: 'currentPassword', message: 'wrong password' },
    ]);
    const changed = await h.call(
      undefined,
      'POST',
      '/dashboard/api/account/password',
      { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
      { cookie: here.cookie, 'x-csrf-token': here.csrf },
    );
    expect(changed.status).toBe(200);
    expect(changed.body.data.endedSessions).toBe(1);
    expect(
      (await h.call(undefined, 'GET', '/dashboard/api/session', undefined, { cookie: otherCookie })).status,
    ).toBe(401);
    expect(
      (await h.call(undefined, 'GET', '/dashboard/api/session', undefined, { cookie: here.cookie })).status,
    ).toBe(200);
    expect((await signIn({ email: here.email, password: PASSWORD }, '192.0.2.61')).status).toBe(401);
    expect((await signIn({ email: here.email, password: NEW_PASSWORD }, '192.0.2.61')).status).toBe(200);
  });

  it('when the account signs out everywhere, then every session of it ends, this one too', async () => {
    const here = await signUp();
    const elsewhere = await signIn({ email: here.email, password: PASSWORD }, '192.0.2.70');
    const otherCookie = cookieOf(elsewhere.headers.get('set-cookie'));
    const out = await h.call(undefined, 'DELETE', '/dashboard/api/account/sessions', undefined, {
      cookie: here.cookie,
      'x-csrf-token': here.csrf,
    });
    expect(out.status).toBe(204);
    for (const cookie of [here.cookie, otherCookie]) {
      expect((await h.call(undefined, 'GET', '/dashboard/api/session', undefined, { cookie })).status).toBe(
        401,
      );
    }
  });
});

describe('two-step sign-in for accounts', () => {
  it('when an account enrols TOTP, then sign-in needs a code or a recovery code (each once), and wrong codes are throttled', async () => {
    const me = await signUp();
    const headers = { cookie: me.cookie, 'x-csrf-token': me.csrf };
    const started = await h.call(undefined, 'POST', '/dashboard/api/account/totp', undefined, headers);
    expect(started.status).toBe(201);
    const secret = started.body.data.secret as string;
    expect(started.body.data.otpauthUri).toMatch(/^otpauth:\/\/totp\/.*secret=/);
    const wrongConfirm = await h.call(
      undefined,
      'POST',
      '/dashboard/api/account/totp/confirm',
      { code: '000000' },
      headers,
    );
    expect(wrongConfirm.status).toBe(400);
    const confirmed = await h.call(
      undefined,
      'POST',
      '/dashboard/api/account/totp/confirm',
      { code: codeAt(h, secret) },
      headers,
    );
    expect(confirmed.status).toBe(200);
    const recovery = confirmed.body.data.recoveryCodes as string[];
    expect(recovery).toHaveLength(10);
    expect(new Set(recovery).size).toBe(10);

    const noCode = await signIn({ email: me.email, password: PASSWORD }, '192.0.2.80');
    expect(noCode.status).toBe(401);
    expect(noCode.body.error.details.fields[0].field).toBe('code');
    h.clock.advance(30_000);
    const code = codeAt(h, secret);
    expect((await signIn({ email: me.email, password: PASSWORD, code }, '192.0.2.80')).status).toBe(200);
    // The same code does not sign in twice.
    expect((await signIn({ email: me.email, password: PASSWORD, code }, '192.0.2.81')).status).toBe(401);
    expect(
      (await signIn({ email: me.email, password: PASSWORD, code: recovery[0] }, '192.0.2.82')).status,
    ).toBe(200);
    expect(
      (await signIn({ email: me.email, password: PASSWORD, code: recovery[0] }, '192.0.2.83')).status,
    ).toBe(401);
    const summary = await h.call(undefined, 'GET', '/dashboard/api/account/security', undefined, headers);
    expect(summary.body.data).toEqual({ totpEnabled: true, totpPending: false, recoveryCodesLeft: 9 });

    // Wrong codes count like wrong passwords: the sixth try from one address waits.
    for (let i = 0; i < 5; i += 1) {
      expect(
        (await signIn({ email: me.email, password: PASSWORD, code: `11111${i}` }, '203.0.113.84')).status,
      ).toBe(401);
    }
    h.clock.advance(30_000);
    const waited = await signIn(
      { email: me.email, password: PASSWORD, code: codeAt(h, secret) },
      '203.0.113.84',
    );
    expect(waited.status).toBe(429);

    const off = await h.call(
      undefined,
      'POST',
      '/dashboard/api/account/totp/disable',
      { password: PASSWORD },
      headers,
    );
    expect(off.status).toBe(204);
    expect((await signIn({ email: me.email, password: PASSWORD }, '192.0.2.85')).status).toBe(200);
  });
});

describe('operator', () => {
  it('when the operator first signs in, then the token alone is not enough: the enrolled TOTP secret is confirmed by a code and required after', async () => {
    const operator = await startHarness();
    try {
      const call = (path: string, body: unknown) => operator.call(undefined, 'POST', path, body);
      const notEnrolled = await call('/dashboard/api/operator-session', { token: ADMIN_TOKEN });
      expect(notEnrolled.status).toBe(409);
      expect(notEnrolled.body.error.code).toBe('INVALID_STATE');
      expect((await call('/dashboard/api/operator-session/totp', { token: 'wrong token' })).status).toBe(401);
      const enrolment = await call('/dashboard/api/operator-session/totp', { token: ADMIN_TOKEN });
      expect(enrolment.status).toBe(201);
      const secret = enrolment.body.data.secret as string;
      expect(
        (await call('/dashboard/api/operator-session', { token: ADMIN_TOKEN, code: '000000' })).status,
      ).toBe(401);
      const first = await call('/dashboard/api/operator-session', {
        token: ADMIN_TOKEN,
        code: codeAt(operator, secret),
      });
      expect(first.status).toBe(200);
      // Confirmed: no second enrolment with the token alone, and the token alone does not sign in.
      expect((await call('/dashboard/api/operator-session/totp', { token: ADMIN_TOKEN })).status).toBe(409);
      const tokenOnly = await call('/dashboard/api/operator-session', { token: ADMIN_TOKEN });
      expect(tokenOnly.status).toBe(401);
      expect(tokenOnly.body.error.details.fields[0].field).toBe('code');
      operator.clock.advance(30_000);
      const again = await call('/dashboard/api/operator-session', {
        token: ADMIN_TOKEN,
        code: codeAt(operator, secret),
      });
      expect(again.status).toBe(200);
      const cookie = cookieOf(again.headers.get('set-cookie'));
      expect((await operator.call(undefined, 'GET', '/admin/platforms', undefined, { cookie })).status).toBe(
        200,
      );
    } finally {
      await operator.stop();
    }
  });

  it('when ADMIN_TOKEN changes, then sessions signed in with the old one are refused and the TOTP enrolment stays', async () => {
    const before = await startHarness();
    const newToken = 'a-brand-new-admin-token-9876543210';
    let after: Harness | undefined;
    try {
      const enrolment = await before.call(undefined, 'POST', '/dashboard/api/operator-session/totp', {
        token: ADMIN_TOKEN,
      });
      const secret = enrolment.body.data.secret as string;
      const signedIn = await before.call(undefined, 'POST', '/dashboard/api/operator-session', {
        token: ADMIN_TOKEN,
        code: codeAt(before, secret),
      });
      expect(signedIn.status).toBe(200);
      const cookie = cookieOf(signedIn.headers.get('set-cookie'));
      expect((await before.call(undefined, 'GET', '/admin/platforms', undefined, { cookie })).status).toBe(
        200,
      );
      // The restart with a new token: another gateway on the same database.
      after = await startHarness({
        databaseUrl: before.databaseUrl,
        clock: before.clock,
        env: { ADMIN_TOKEN: newToken },
      });
      const old = await after.call(
        undefined,
        'POST',
        '/admin/platforms',
        { name: 'x', plan: 'sandbox' },
        { cookie },
      );
      expect(old.status).toBe(401);
      expect(old.body.error.message).toBe('Your session has ended');
      expect(
        (await after.call(undefined, 'POST', '/dashboard/api/operator-session/totp', { token: newToken }))
          .status,
      ).toBe(409);
      before.clock.advance(30_000);
      const fresh = await after.call(undefined, 'POST', '/dashboard/api/operator-session', {
        token: newToken,
        code: codeAt(after, secret),
      });
      expect(fresh.status).toBe(200);
    } finally {
      await after?.stop();
      await before.stop();
    }
  });

  it('when ADMIN_TOTP_SECRET is set, then it is the operator second factor and no enrolment is offered', async () => {
    const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
    const preset = await startHarness({ env: { ADMIN_TOTP_SECRET: secret } });
    try {
      const enrol = await preset.call(undefined, 'POST', '/dashboard/api/operator-session/totp', {
        token: ADMIN_TOKEN,
      });
      expect(enrol.status).toBe(409);
      const signedIn = await preset.call(undefined, 'POST', '/dashboard/api/operator-session', {
        token: ADMIN_TOKEN,
        code: codeAt(preset, secret),
      });
      expect(signedIn.status).toBe(200);
    } finally {
      await preset.stop();
    }
  });
});
