import { request } from 'node:http';
import { linkToken, startHarness, type Harness } from '../fixtures/gateway-harness';

// Account mail (#30, docs/spec/contracts.md §17): sign-up verified by a mailed link without telling
// whether an address has an account, throttled per client; password reset by a single-use link;
// mail through an outbox and a relay that retries a refusing SMTP server.
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ env: { SIGN_UPS_PER_HOUR: '4' } });
});
afterAll(async () => {
  await h.stop();
});
// Each test starts in a new hour: the sign-up throttle (4 an hour from 127.0.0.1) starts again.
beforeEach(() => {
  h.clock.advance(60 * 60 * 1000);
});

const STRONG = 'violet tractor umbrella 42';
let n = 0;
function person() {
  n += 1;
  return { email: `mail${n}@example.com`, name: `Mail Person ${n}`, role: 'creator', password: STRONG };
}

const cookieOf = (setCookie: string | null) =>
  `svc_session=${/svc_session=([^;]+)/.exec(setCookie ?? '')?.[1]}`;
const signIn = (email: string, password: string) =>
  h.call(undefined, 'POST', '/dashboard/api/session', { email, password });

describe('sign-up with e-mail verification', () => {
  it('when a new address signs up, then 202 and a mailed link; following it creates the account and signs in', async () => {
    const who = person();
    const res = await h.call(undefined, 'POST', '/dashboard/api/accounts', {
      ...who,
      email: who.email.toUpperCase(),
    });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ data: { status: 'verification_sent', email: who.email } });
    expect(res.headers.get('set-cookie')).toBeNull();
    // Not an account yet: signing in is refused as for an unknown address.
    expect((await signIn(who.email, STRONG)).status).toBe(401);

    const mail = await h.mail.waitFor((m) => m.to.includes(who.email));
    expect(mail.subject).toBe('Confirm your e-mail address');
    expect(mail.links[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/dashboard\/verify-email#token=[\w-]{43}$/);
    const wrong = await h.call(undefined, 'POST', '/dashboard/api/email-verifications', {
      token: linkToken(mail),
      password: 'not the one I chose 5',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details.fields[0].field).toBe('password');
    const verified = await h.call(undefined, 'POST', '/dashboard/api/email-verifications', {
      token: linkToken(mail),
      password: STRONG,
    });
    expect(verified.status).toBe(200);
    expect(verified.body.data.account).toMatchObject({ email: who.email, name: who.name, role: 'creator' });
    const cookie = cookieOf(verified.headers.get('set-cookie'));
    expect((await h.call(undefined, 'GET', '/dashboard/api/session', undefined, { cookie })).status).toBe(
      200,
    );
    expect((await signIn(who.email, STRONG)).status).toBe(200);

    const again = await h.call(undefined, 'POST', '/dashboard/api/email-verifications', {
      token: linkToken(mail),
      password: STRONG,
    });
    expect(again.status).toBe(400);
    expect(again.body.error.details.fields[0].field).toBe('token');
  });

  it('when the address already has an account, then the answer is the same, a mail says so, and nothing changes', async () => {
    const who = person();
    expect((await h.signUp(who)).status).toBe(200);
    const inboxBefore = h.mail.inbox(who.email).length;
    const res = await h.call(undefined, 'POST', '/dashboard/api/accounts', {
      ...who,
      name: 'Someone Else',
      password: 'another fine passphrase 7',
    });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ data: { status: 'verification_sent', email: who.email } });
    await h.mail.waitFor(() => h.mail.inbox(who.email).length > inboxBefore);
    const mail = h.mail.inbox(who.email).at(-1);
    expect(mail?.subject).toBe('You already have an account');
    expect(mail?.links).toEqual([
      expect.stringMatching(/\/dashboard\/sign-in$/),
      expect.stringMatching(/\/dashboard\/forgot-password$/),
    ]);
    expect((await signIn(who.email, STRONG)).status).toBe(200);
    expect((await signIn(who.email, 'another fine passphrase 7')).status).toBe(401);
  });

  it('when someone else signed up with the address first, then its link completes nothing without their password, and the owner gets the account with their own (pre-hijacking)', async () => {
    const victim = person();
    const attackerPassword = 'attacker knows this 1 phrase';
    await h.call(undefined, 'POST', '/dashboard/api/accounts', { ...victim, password: attackerPassword });
    const planted = await h.mail.waitFor((m) => m.to.includes(victim.email));
    // The owner follows the link that arrived, with the password they would choose: refused, link kept.
    const refused = await h.call(undefined, 'POST', '/dashboard/api/email-verifications', {
      token: linkToken(planted),
      password: STRONG,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.fields[0].field).toBe('password');
    // The owner signs up themselves: their sign-up replaces the planted one.
    const mine = await h.signUp(victim);
    expect(mine.status).toBe(200);
    expect((await signIn(victim.email, STRONG)).status).toBe(200);
    expect((await signIn(victim.email, attackerPassword)).status).toBe(401);
    const late = await h.call(undefined, 'POST', '/dashboard/api/email-verifications', {
      token: linkToken(planted),
      password: attackerPassword,
    });
    expect(late.status).toBe(400);
  });

  it.each([
    ['password1234', /guess/],
    ['            ', /guess/],
    ['qwertyuiop12', /guess/],
  ])(
    'when the password is %j, then 400 names the password with a hint, and no mail goes out',
    async (password, hint) => {
      const who = person();
      const res = await h.call(undefined, 'POST', '/dashboard/api/accounts', { ...who, password });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.fields).toEqual([
        { field: 'password', message: expect.stringMatching(hint) },
      ]);
      expect(h.mail.inbox(who.email)).toEqual([]);
    },
  );

  it('when one client signs up too often, then 429 with Retry-After, whatever the addresses', async () => {
    for (let i = 0; i < 4; i += 1) {
      expect((await h.call(undefined, 'POST', '/dashboard/api/accounts', person())).status).toBe(202);
    }
    const refused = await h.call(undefined, 'POST', '/dashboard/api/accounts', person());
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.body.error.details).toMatchObject({
      remaining: 0,
      resetAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it('when another site posts the sign-up, then 403', async () => {
    const res = await h.call(undefined, 'POST', '/dashboard/api/accounts', person(), {
      origin: 'https://evil.example',
    });
    expect(res.status).toBe(403);
  });
});

describe('password reset by e-mail', () => {
  it('when an address with an account asks, then a single-use link resets the password and ends every session', async () => {
    const who = person();
    const signedUp = await h.signUp(who);
    const oldCookie = cookieOf(signedUp.headers.get('set-cookie'));
    const asked = await h.call(undefined, 'POST', '/dashboard/api/password-resets', { email: who.email });
    expect(asked.status).toBe(202);
    expect(asked.body).toEqual({ data: { status: 'reset_sent', email: who.email } });
    const mail = await h.mail.waitFor((m) => m.to.includes(who.email) && m.subject === 'Reset your password');
    expect(mail.links[0]).toMatch(/\/dashboard\/reset-password#token=[\w-]{43}$/);
    const token = linkToken(mail);

    const weak = await h.call(undefined, 'POST', '/dashboard/api/password-resets/complete', {
      token,
      password: 'password1234',
    });
    expect(weak.status).toBe(400);
    expect(weak.body.error.details.fields[0].field).toBe('password');

    const done = await h.call(undefined, 'POST', '/dashboard/api/password-resets/complete', {
      token,
      password: 'marble kettle sunrise 9',
    });
    expect(done.status).toBe(200);
    expect(done.body.data).toEqual({ status: 'password_reset', sessionsEnded: 1 });
    expect(
      (await h.call(undefined, 'GET', '/dashboard/api/session', undefined, { cookie: oldCookie })).status,
    ).toBe(401);
    expect((await signIn(who.email, STRONG)).status).toBe(401);
    expect((await signIn(who.email, 'marble kettle sunrise 9')).status).toBe(200);

    const reused = await h.call(undefined, 'POST', '/dashboard/api/password-resets/complete', {
      token,
      password: 'another fine passphrase 7',
    });
    expect(reused.status).toBe(400);
    expect(reused.body.error.details.fields[0].field).toBe('token');
  });

  it('when the link is older than 30 minutes, then it no longer works', async () => {
    const who = person();
    await h.signUp(who);
    await h.call(undefined, 'POST', '/dashboard/api/password-resets', { email: who.email });
    const mail = await h.mail.waitFor((m) => m.to.includes(who.email) && m.subject === 'Reset your password');
    h.clock.advance(31 * 60 * 1000);
    const late = await h.call(undefined, 'POST', '/dashboard/api/password-resets/complete', {
      token: linkToken(mail),
      password: 'marble kettle sunrise 9',
    });
    expect(late.status).toBe(400);
    expect((await signIn(who.email, STRONG)).status).toBe(200);
  });

  it('when the Host header names another site and PUBLIC_BASE_URL is unset, then no link is mailed there (host header poisoning)', async () => {
    const who = person();
    await h.signUp(who);
    const before = h.mail.inbox(who.email).length;
    // fetch does not let a Host header through: a raw request does, as any client may.
    const poisoned = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const body = JSON.stringify({ email: who.email });
      const req = request(
        `${h.url}/dashboard/api/password-resets`,
        {
          method: 'POST',
          headers: {
            host: 'attacker.example',
            'content-type': 'application/json',
            'content-length': body.length,
          },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(poisoned.status).toBe(409);
    expect(JSON.parse(poisoned.body).error.code).toBe('INVALID_STATE');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.mail.inbox(who.email)).toHaveLength(before);
  });

  it('when the address has no account, then the same answer and no mail', async () => {
    const asked = await h.call(undefined, 'POST', '/dashboard/api/password-resets', {
      email: 'Nobody@Example.com',
    });
    expect(asked.status).toBe(202);
    expect(asked.body).toEqual({ data: { status: 'reset_sent', email: 'nobody@example.com' } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.mail.inbox('nobody@example.com')).toEqual([]);
  });
});

describe('mail outbox and relay', () => {
  it('when the SMTP server refuses, then the sign-up still holds and the mail arrives once after a retry', async () => {
    const who = person();
    h.mail.refuse(1);
    const res = await h.call(undefined, 'POST', '/dashboard/api/accounts', who);
    expect(res.status).toBe(202);
    // The refused attempt is rescheduled 5 s later on the gateway's clock.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(h.mail.inbox(who.email)).toEqual([]);
    h.clock.advance(10_000);
    const mail = await h.mail.waitFor((m) => m.to.includes(who.email), 15_000);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(h.mail.inbox(who.email)).toHaveLength(1);
    const verified = await h.call(undefined, 'POST', '/dashboard/api/email-verifications', {
      token: linkToken(mail),
      password: STRONG,
    });
    expect(verified.status).toBe(200);
  });
});
