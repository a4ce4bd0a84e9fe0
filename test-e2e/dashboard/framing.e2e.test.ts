import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { seriousViolations } from './accessibility';
import {
  launchBrowser,
  newVisitor,
  screenshot,
  SCREENSHOTS,
  signUp,
  startDeployment,
  uniqueEmail,
  type Deployment,
} from './browser';

jest.setTimeout(300_000);

// Issue #30: a page on another port framed the dashboard's API-keys page and one click revoked a
// production key. Now the browser refuses to draw the dashboard in another site's frame, and the
// dashboard's own strict CSP (scripts from its files only) breaks none of its pages.

/** Collects the CSP violations a page reports, from the document's start. */
async function watchViolations(page: Page): Promise<() => Promise<string[]>> {
  const fromConsole: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) fromConsole.push(message.text());
  });
  // Browser code as text: the tests are type-checked without the DOM library.
  await page.addInitScript({
    content: `window.cspViolations = [];
      document.addEventListener('securitypolicyviolation', (event) => {
        window.cspViolations.push(event.violatedDirective + ' ' + event.blockedURI);
      });`,
  });
  return async () => [...fromConsole, ...((await page.evaluate('window.cspViolations || []')) as string[])];
}

/** Follows a link of the navigation and waits for the page's calls to settle. */
async function visit(page: Page, link: string): Promise<void> {
  await page.getByRole('navigation').getByRole('link', { name: link, exact: true }).click();
  await page.waitForLoadState('networkidle');
  await page.getByRole('heading').first().waitFor();
}

describe('dashboard: framing and content security policy in a real browser', () => {
  let deployment: Deployment;
  let browser: Browser;
  let attacker: Server;
  let attackerUrl: string;

  beforeAll(async () => {
    deployment = await startDeployment();
    browser = await launchBrowser();
    // Another origin (another port on loopback) that frames the dashboard's keys page.
    attacker = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<!doctype html><title>Win a prize</title><h1>Click the button</h1>` +
          `<iframe id="victim" src="${deployment.url}/dashboard/keys" width="900" height="600"></iframe>`,
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`;
  });

  afterAll(async () => {
    await browser?.close();
    await deployment?.stop();
    await new Promise((resolve) => attacker?.close(resolve));
  });

  it('when another site frames the dashboard, then the browser refuses to draw it in the frame', async () => {
    const context = await newVisitor(browser);
    const page = await context.newPage();
    // Signed in first, as the victim was: the frame would carry the session.
    await signUp(page, deployment, {
      email: uniqueEmail('framed'),
      name: 'Framed Inc',
      role: 'platform',
    });
    const refusals: string[] = [];
    page.on('console', (message) => {
      if (/frame-ancestors|X-Frame-Options/i.test(message.text())) refusals.push(message.text());
    });
    const dashboardAnswered = page.waitForResponse((res) => res.url() === `${deployment.url}/dashboard/keys`);
    await page.goto(attackerUrl);
    const answer = await dashboardAnswered;
    expect(answer.headers()['x-frame-options']).toBe('DENY');
    // Time for the dashboard's script to draw, had it been allowed to load.
    await page.waitForTimeout(2_000);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(frame).toBeDefined();
    const drawn = await frame
      ?.evaluate("document.querySelector('#root')?.childElementCount ?? 0")
      .catch(() => 0);
    expect(drawn).toBe(0);
    expect(frame?.url()).not.toBe(`${deployment.url}/dashboard/keys`);
    expect(await page.getByRole('heading', { name: 'Click the button' }).isVisible()).toBe(true);
    expect(refusals.join('\n')).toMatch(/frame-ancestors|X-Frame-Options/i);
    await screenshot(page, 'framing-refused');
    await context.close();
  });

  it("when the dashboard is opened top-level, then every page draws with no CSP violation and no serious accessibility violation, and one key too many shows the API's refusal", async () => {
    const context = await newVisitor(browser);
    const page = await context.newPage();
    const violations = await watchViolations(page);
    // Issue #32: axe-core finds no serious or critical WCAG 2.1 AA violation on any page.
    const inaccessible: string[] = [];
    for (const signedOut of ['sign-in', 'sign-up', 'forgot-password', 'operator-sign-in']) {
      await page.goto(`${deployment.url}/dashboard/${signedOut}`);
      await page.waitForLoadState('networkidle');
      await page.getByRole('heading').first().waitFor();
      inaccessible.push(...(await seriousViolations(page)));
    }
    await signUp(page, deployment, { email: uniqueEmail('csp'), name: 'Strict Inc', role: 'platform' });
    inaccessible.push(...(await seriousViolations(page)));
    for (const link of [
      'API keys',
      'Request log',
      'Webhooks',
      'Plan and usage',
      'Licenses',
      'Violations',
      'Obligations',
      'What you owe',
    ]) {
      await visit(page, link);
      inaccessible.push(...(await seriousViolations(page)));
    }
    // The platform's keys up to the quota (20), then one more from the page.
    await page.getByRole('link', { name: 'API keys', exact: true }).first().click();
    const issued = await page.evaluate(async () => {
      const session = (await (await fetch('/dashboard/api/session')).json()) as {
        data: { csrfToken: string };
      };
      const statuses: number[] = [];
      for (let i = 0; i < 20; i += 1) {
        const res = await fetch('/dashboard/api/keys', {
          method: 'POST',
          headers: { 'x-csrf-token': session.data.csrfToken },
        });
        statuses.push(res.status);
      }
      return statuses;
    });
    expect(issued).toEqual(Array.from({ length: 20 }, () => 201));
    await page.getByRole('button', { name: 'Create a key' }).click();
    await page.getByText(/Active API key limit reached: at most 20 active sandbox keys/).waitFor();
    await screenshot(page, 'keys-quota-refused');

    const creator = await newVisitor(browser);
    const creatorPage = await creator.newPage();
    const creatorViolations = await watchViolations(creatorPage);
    await signUp(creatorPage, deployment, {
      email: uniqueEmail('cspc'),
      name: 'Ada Strict',
      role: 'creator',
    });
    for (const link of ['Claims', 'Boxes', 'Royalties', 'Overview']) {
      await visit(creatorPage, link);
      inaccessible.push(...(await seriousViolations(creatorPage)));
    }
    for (const path of ['claims/new', 'account', 'no-such-page']) {
      await creatorPage.goto(`${deployment.url}/dashboard/${path}`);
      await creatorPage.waitForLoadState('networkidle');
      await creatorPage.getByRole('heading').first().waitFor();
      inaccessible.push(...(await seriousViolations(creatorPage)));
    }

    expect(inaccessible).toEqual([]);
    expect(await violations()).toEqual([]);
    expect(await creatorViolations()).toEqual([]);
    await creator.close();
    await context.close();
  });

  it('when the API reference is opened from the dashboard, then Redoc draws every operation from the served document, offline and with no CSP violation', async () => {
    const context = await newVisitor(browser);
    const page = await context.newPage();
    const violations = await watchViolations(page);
    // Offline: any request that leaves the gateway is refused and recorded.
    const elsewhere: string[] = [];
    await context.route(
      (url) => !url.href.startsWith(deployment.url),
      (route) => {
        elsewhere.push(route.request().url());
        return route.abort();
      },
    );
    await signUp(page, deployment, { email: uniqueEmail('docs'), name: 'Reader Inc', role: 'platform' });
    await page.getByRole('link', { name: 'API reference' }).click();
    await page.waitForURL(`${deployment.url}/docs`);
    await page
      .getByRole('heading', { name: /Identity protection and licensing API/ })
      .waitFor({ timeout: 60_000 });
    // An operation, its error answers, and a webhook, all from the served document.
    await page
      .getByRole('heading', {
        name: 'Is this name (and picture) a protected identity, and what must happen?',
      })
      .waitFor();
    const text = (await page.evaluate('document.body.innerText')) as string;
    expect(text).toContain('Check up to 100 identities at once');
    expect(text).toContain('Signed deliveries of events to your endpoints');
    expect(await page.title()).toBe('API reference · Identity protection');
    // The reference is one very long page: its first screen only.
    await page.screenshot({ path: path.join(SCREENSHOTS, 'api-reference.png') });
    expect(elsewhere).toEqual([]);
    expect(await violations()).toEqual([]);
    await context.close();
  });
});
