import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import {
  launchBrowser,
  mailedLink,
  newVisitor,
  PASSWORD,
  screenshot,
  signUp,
  startDeployment,
  uniqueEmail,
  type Deployment,
} from './browser';

jest.setTimeout(240_000);

describe('dashboard: accounts and sessions in a real browser', () => {
  let deployment: Deployment;
  let browser: Browser;

  beforeAll(async () => {
    deployment = await startDeployment();
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await deployment?.stop();
  });

  it('when a creator signs up, signs out and signs in again, then each step shows where they are, at phone width too', async () => {
    const context = await newVisitor(browser, { phone: true });
    const page = await context.newPage();
    const email = uniqueEmail('creator');
    await signUp(page, deployment, { email, name: 'Ada Lovelace', role: 'creator' });
    // The session cookie is HttpOnly, SameSite=Strict, and not Secure on localhost only.
    const cookie = (await context.cookies()).find((c) => c.name === 'svc_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', secure: false, path: '/' });
    expect(await page.evaluate('document.cookie')).not.toContain('svc_session');
    await page.getByRole('link', { name: 'Claim an identity' }).waitFor();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // Signed out, a page of the dashboard leads back to sign-in.
    await page.goto(`${deployment.url}/dashboard/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();

    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The API's message, next to the field it names.
    const passwordError = page.locator('.field', { has: page.getByLabel('Password') }).getByRole('alert');
    expect(await passwordError.textContent()).toBe('wrong e-mail address or password');
    expect(await page.getByLabel('Password').getAttribute('aria-invalid')).toBe('true');

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Welcome, Ada Lovelace' }).waitFor();
    await screenshot(page, 'accounts-sign-in-phone');
    await context.close();
  });

  it('when sign-up input is bad, then the API’s message shows next to the field', async () => {
    const context = await newVisitor(browser);
    const page = await context.newPage();
    await page.goto(`${deployment.url}/dashboard/sign-up`);
    await page.getByLabel('Your name').fill('Grace Hopper');
    await page.getByLabel('E-mail').fill(uniqueEmail('grace'));
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    const passwordError = page.locator('.field', { has: page.getByLabel('Password') }).getByRole('alert');
    await passwordError.waitFor();
    expect(await passwordError.textContent()).toBe('at least 12 characters');
    await screenshot(page, 'accounts-sign-up-error');
    await context.close();
  });

  it('when a person signs up, then they are asked to check their inbox, and the mailed link lands them signed in (#30)', async () => {
    const context = await newVisitor(browser);
    const page = await context.newPage();
    const email = uniqueEmail('mary');
    await page.goto(`${deployment.url}/dashboard/sign-up`);
    await page.getByLabel('Your name').fill('Mary Somerville');
    await page.getByLabel('E-mail').fill(email);
    // A common password with digits is refused with the policy's hint, next to the field.
    await page.getByLabel('Password').fill('password1234');
    await page.getByRole('button', { name: 'Create account' }).click();
    const passwordError = page.locator('.field', { has: page.getByLabel('Password') }).getByRole('alert');
    await passwordError.waitFor();
    expect(await passwordError.textContent()).toMatch(/too easy to guess/);

    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    expect(await page.getByRole('status').textContent()).toContain(email);
    // No account and no session before the link is followed.
    expect((await context.cookies()).find((c) => c.name === 'svc_session')).toBeUndefined();
    await screenshot(page, 'accounts-check-inbox');

    const link = await mailedLink(deployment.mail, email, 'Confirm your e-mail address');
    expect(link.startsWith(`${deployment.url}/dashboard/verify-email#token=`)).toBe(true);
    await page.goto(link);
    // Only whoever chose the password completes the sign-up (someone else may use this address).
    await page.getByLabel('Password').fill('not what I chose 42');
    await page.getByRole('button', { name: 'Confirm and sign in' }).click();
    await page.getByText(/not the password chosen at sign-up/).waitFor();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Confirm and sign in' }).click();
    await page.getByRole('heading', { name: 'Welcome, Mary Somerville' }).waitFor();
    expect((await context.cookies()).find((c) => c.name === 'svc_session')).toBeDefined();
    await screenshot(page, 'accounts-verified');

    // The link works once.
    const other = await (await newVisitor(browser)).newPage();
    await other.goto(link);
    await other.getByLabel('Password').fill(PASSWORD);
    await other.getByRole('button', { name: 'Confirm and sign in' }).click();
    await other.getByRole('heading', { name: 'This link does not work' }).waitFor();
    await context.close();
  });

  it('when a person forgot their password, then a mailed link sets a new one and they sign in with it (#30)', async () => {
    const context = await newVisitor(browser);
    const page = await context.newPage();
    const email = uniqueEmail('forgetful');
    await signUp(page, deployment, { email, name: 'Forgetful', role: 'creator' });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByRole('heading', { name: 'Forgot your password?' }).waitFor();
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'Send me a reset link' }).click();
    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();

    await page.goto(await mailedLink(deployment.mail, email, 'Reset your password'));
    await page.getByLabel('New password').fill('marble kettle sunrise 9');
    await page.getByRole('button', { name: 'Save new password' }).click();
    await page.getByRole('heading', { name: 'Password changed' }).waitFor();
    await page.getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill('marble kettle sunrise 9');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Welcome, Forgetful' }).waitFor();
    await screenshot(page, 'accounts-password-reset');
    await context.close();
  });

  it('when a sign-in is guessed again and again, then it is refused with a clear message', async () => {
    const context = await newVisitor(browser);
    const page = await context.newPage();
    const email = uniqueEmail('target');
    await signUp(page, deployment, { email, name: 'Target', role: 'platform' });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    for (let attempt = 0; attempt < 6; attempt += 1) {
      await page.getByLabel('E-mail').fill(email);
      await page.getByLabel('Password').fill(`guess ${attempt}`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').first().waitFor();
    }
    await page.getByText(/Too many failed sign-in attempts\. Try again in \d+ minutes?\./).waitFor();
    // The right password is refused too until the window ends.
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText(/Too many failed sign-in attempts/).waitFor();
    expect(await page.getByRole('heading', { name: 'Sign in' }).isVisible()).toBe(true);
    await screenshot(page, 'accounts-throttled');
    await context.close();
  });

  it('when signed out, then the session cannot read anything: neither the dashboard API nor the public API', async () => {
    const context = await newVisitor(browser);
    const page = await context.newPage();
    await signUp(page, deployment, { email: uniqueEmail('leaver'), name: 'Leaver', role: 'creator' });
    const cookie = (await context.cookies()).find((c) => c.name === 'svc_session');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // The old cookie, replayed by hand after sign-out, is dead on every path.
    for (const path of ['/dashboard/api/session', '/v1/svc/claims', '/v1/svc/boxes']) {
      const res = await fetch(`${deployment.url}${path}`, {
        headers: { cookie: `svc_session=${cookie?.value}` },
      });
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
    }
    await context.close();
  });

  it('when another site posts with the signed-in browser, then the request is refused and nothing is created', async () => {
    const context = await newVisitor(browser);
    const page = await context.newPage();
    await signUp(page, deployment, {
      email: uniqueEmail('victim'),
      name: 'Victim Platform',
      role: 'platform',
    });
    // Another site (a page of its own on localhost, not 127.0.0.1, with no CSP of ours) fires a
    // credentialed POST at the gateway.
    const evilSite = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>evil</title>');
    });
    await new Promise<void>((resolve) => evilSite.listen(0, '127.0.0.1', resolve));
    const forged = await context.newPage();
    await forged.goto(`http://localhost:${(evilSite.address() as AddressInfo).port}/`);
    const statuses = await forged.evaluate(async (target) => {
      const one = async (path: string) =>
        (await fetch(`${target}${path}`, { method: 'POST', credentials: 'include', mode: 'no-cors' })).type;
      return [await one('/dashboard/api/keys'), await one('/v1/svc/webhooks')];
    }, deployment.url);
    expect(statuses).toEqual(['opaque', 'opaque']);
    // And a same-origin script without the CSRF token is refused by the gateway itself.
    const withoutToken = await page.evaluate(async () => {
      const res = await fetch('/dashboard/api/keys', { method: 'POST', credentials: 'same-origin' });
      return { status: res.status, body: await res.json() };
    });
    expect(withoutToken).toMatchObject({ status: 403, body: { error: { code: 'FORBIDDEN' } } });
    const keys = await page.evaluate(async () => {
      const body = (await (await fetch('/dashboard/api/keys')).json()) as { data: unknown[] };
      return body.data;
    });
    expect(keys).toEqual([]);
    await context.close();
    evilSite.close();
  });
});
