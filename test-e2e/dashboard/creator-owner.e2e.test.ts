import type { Browser, Locator, Page } from 'playwright-core';
import { seriousViolations } from './accessibility';
import { waitFor } from '@svc/test-kit';
import { call, newPlatform } from '../helpers';
import {
  launchBrowser,
  newVisitor,
  screenshot,
  signUp,
  startDeployment,
  uniqueEmail,
  type Deployment,
} from './browser';

// Issue #20, the creator's side of a box in a real browser: its statistics as charts (with their
// tables), the violations other platforms' avatars cause, and license requests approved or denied
// from the dashboard, each checked against what the public API then answers the platform.

jest.setTimeout(300_000);

/** Clicks `button` until `target` shows: the figures come from events other services publish. */
async function refreshUntil(page: Page, button: string, target: Locator): Promise<void> {
  for (let attempt = 0; attempt < 30; attempt += 1) {
    if (await target.isVisible()) return;
    await page.getByRole('button', { name: button }).click();
    await page.waitForTimeout(1000);
  }
  await target.waitFor({ timeout: 1000 });
}

/** Through the dashboard: claims `name`, verifies it in the sandbox and boxes it with LICENSE (no tier approves itself). */
async function boxedInDashboard(page: Page, name: string): Promise<string> {
  await page.getByRole('link', { name: 'Claims' }).click();
  await page.getByRole('link', { name: 'Claim an identity' }).click();
  // The form's own page, before its Name field is filled (the claims list has a search by name).
  await page.getByRole('heading', { name: 'Claim an identity', level: 1 }).waitFor();
  await page.getByLabel('Name').fill(name);
  await page.getByLabel(/Reference pictures/).fill('https://images.example.com/portrait.jpg');
  await page.getByRole('button', { name: 'Claim' }).click();
  await page.getByRole('heading', { name }).waitFor();
  await page.getByRole('button', { name: 'Complete verification (sandbox)' }).click();
  await page.getByText('verified', { exact: true }).waitFor();
  await page.getByLabel('Policy').selectOption('LICENSE');
  await page.getByRole('button', { name: 'Protect with this box' }).click();
  await page.getByRole('heading', { name: `Box of ${name}` }).waitFor();
  return /\/boxes\/(box_[A-Za-z0-9]+)/.exec(page.url())?.[1] ?? '';
}

/** The row of the month table of a chart, opened as a keyboard user would. */
async function monthRow(page: Page, chart: string): Promise<Locator> {
  const figure = page.getByRole('figure', { name: chart });
  const details = figure.locator('details');
  if ((await details.getAttribute('open')) === null) {
    await figure.getByText(`${chart}: the figures as a table`).focus();
    await page.keyboard.press('Enter');
  }
  return figure.getByRole('table', { name: chart }).getByRole('row').last();
}

describe('dashboard: a creator sees violations, statistics and license requests on their boxes', () => {
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

  it('when another platform reports an avatar of the boxed identity, then the creator sees the violation with its grace period, the charts move, and the creator can contest its resolution', async () => {
    const context = await newVisitor(browser);
    const page = await context.newPage();
    const suffix = `${process.pid}${Date.now() % 100000}`;
    const name = `Grace Hopper ${suffix}`;
    const graceEmail = uniqueEmail('grace');
    await signUp(page, deployment, { email: graceEmail, name: 'Hopper Estate', role: 'creator' });
    const boxId = await boxedInDashboard(page, name);
    expect(boxId).toMatch(/^box_/);

    // Before: nothing detected, and the page says what happens next.
    await page.getByText('No violation so far.').waitFor();
    const before = await monthRow(page, 'Violations by month');
    expect(await before.getByRole('cell').first().textContent()).toBe('0');

    // A second platform (its own API key) reports an avatar under the protected name.
    const host = await newPlatform(
      { gatewayUrl: deployment.url, adminToken: deployment.adminToken },
      'Avatar Hub',
    );
    // Detection learns the box from the registry's events: until then the avatar matches nothing,
    // and reporting it again (the same id) evaluates it again.
    let last: unknown;
    const reported = await waitFor(
      async () => {
        const res = await call(deployment.url, host.key, 'POST', '/v1/svc/avatars', {
          id: 'avatar-grace-1',
          name,
          creatorId: 'user-77',
          userCount: 2500,
        });
        last = res.body;
        return res.body?.data?.match?.outcome === 'violation' ? res : undefined;
      },
      { what: 'the avatar to match the box', timeoutMs: 60_000, intervalMs: 1000 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}; last answer: ${JSON.stringify(last)}`);
    });
    expect([200, 201]).toContain(reported.status);
    expect(reported.body.data.match).toMatchObject({ boxId, outcome: 'violation' });

    // The creator is mailed of it (#30): the platform, the grace period and a link to the box.
    const told = await deployment.mail.waitFor(
      (m) =>
        m.to.includes(graceEmail) && m.subject.startsWith(`A possible violation of ${name} on Avatar Hub`),
      30_000,
    );
    expect(told.text).toContain('30 days to license the identity or take the avatar down');
    expect(told.links).toContain(`${deployment.url}/dashboard/boxes/${boxId}`);

    // The creator sees it on the box page: pending, in its grace period, on that platform (by name).
    const row = page.getByRole('row', { name: new RegExp(name) });
    await refreshUntil(page, 'Refresh violations', row);
    expect(await row.getByRole('cell').nth(1).textContent()).toMatch(/^Avatar Hub /);
    expect(await row.getByText('pending', { exact: true }).isVisible()).toBe(true);
    expect(await row.getByText('active', { exact: true }).isVisible()).toBe(true);
    expect(await row.getByRole('cell').nth(3).textContent()).toBe('high');

    // The statistics move: this month's figures, the chart's table and its bars.
    await refreshUntil(
      page,
      'Refresh figures',
      page.locator('dl[aria-label^="Figures of"] dt:has-text("Violations detected") + dd', {
        hasText: /^1$/,
      }),
    );
    const after = await monthRow(page, 'Violations by month');
    expect(await after.getByRole('cell').first().textContent()).toBe('1');
    const bars = page.getByRole('figure', { name: 'Violations by month' }).locator('.recharts-bar-rectangle');
    expect(await bars.count()).toBeGreaterThan(0);
    const states = page.getByRole('figure', { name: 'Violations and grace periods by state, now' });
    expect(await states.getAttribute('aria-describedby')).toBeTruthy();
    expect(await states.getByText(/Pending \(in grace period\): 1/).isVisible()).toBe(true);

    // The filter keeps only what is asked for; the list across boxes counts it too.
    await page.getByLabel('Show violations').selectOption('resolved');
    await page.getByText('No violation in this state.').waitFor();
    await page.getByLabel('Show violations').selectOption('all');
    await row.waitFor();

    // The platform says it removed the avatar; the creator contests that resolution from the
    // dashboard (an empty explanation gets the API's message next to the field).
    const violationId = reported.body.data.openViolations[0] as string;
    const resolved = await call(
      deployment.url,
      host.key,
      'POST',
      `/v1/svc/violations/${violationId}/resolve`,
      {
        resolution: 'removed',
        avatarId: 'avatar-grace-1',
      },
    );
    expect(resolved.status).toBe(200);
    const contestButton = row.getByRole('button', { name: /^Contest the resolution of/ });
    await refreshUntil(page, 'Refresh violations', contestButton);
    expect(await row.getByText(/removed by the platform/).isVisible()).toBe(true);
    await contestButton.click();
    const explanation = page.getByLabel('Why the resolution does not hold');
    await page.getByRole('button', { name: 'Contest the resolution', exact: true }).click();
    await page.locator('.field', { has: explanation }).getByRole('alert').waitFor();
    expect(await explanation.getAttribute('aria-invalid')).toBe('true');
    await explanation.fill('The avatar is still online under the same name');
    await page.getByRole('button', { name: 'Contest the resolution', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Contested the resolution' }).waitFor();
    await row.getByText('contest pending').waitFor();
    expect(await contestButton.count()).toBe(0);
    await page.getByRole('link', { name: 'Boxes' }).click();
    const boxRow = page.getByRole('row', { name: new RegExp(name) });
    await boxRow.waitFor();
    expect(await boxRow.getByRole('cell').nth(2).textContent()).toBe('1');
    await boxRow.getByRole('link', { name }).click();
    await page.getByRole('heading', { name: `Box of ${name}` }).waitFor();
    await page.getByRole('figure', { name: 'Violations by month' }).waitFor();
    const boxUrl = page.url();
    await screenshot(page, 'creator-box-violation-and-charts');
    await context.close();

    // Another creator can read the verified box, but not its statistics, requests or violations.
    const intruder = await newVisitor(browser);
    const other = await intruder.newPage();
    await signUp(other, deployment, {
      email: uniqueEmail('nosy'),
      name: 'Nosy Creator',
      role: 'creator',
    });
    await other.goto(boxUrl);
    await other.getByText('This box belongs to another account').waitFor();
    expect(await other.getByRole('heading', { name: 'Violations and grace periods' }).count()).toBe(0);
    expect(await other.getByText(/Avatar Hub/).count()).toBe(0);
    await intruder.close();
  });

  it('when platforms request licenses, then the creator approves one and denies one with a reason from the dashboard, and the API answers each platform so', async () => {
    const context = await newVisitor(browser, { phone: true });
    const page = await context.newPage();
    const suffix = `${process.pid}${Date.now() % 100000}`;
    const name = `Alan Turing ${suffix}`;
    const alanEmail = uniqueEmail('alan');
    await signUp(page, deployment, { email: alanEmail, name: 'Turing Trust', role: 'creator' });
    const boxId = await boxedInDashboard(page, name);
    await page.getByText('No request is waiting for your decision.').waitFor();

    const cluster = { gatewayUrl: deployment.url, adminToken: deployment.adminToken };
    const chatty = await newPlatform(cluster, 'Chatty');
    const studio = await newPlatform(cluster, 'Studio');
    // Licensing learns the box from the registry's events: a request may find it a moment later.
    const request = (key: string, tier: string, useCase: string) =>
      waitFor(
        async () => {
          const res = await call(deployment.url, key, 'POST', '/v1/svc/licenses/request', {
            boxId,
            tier,
            useCase,
            acceptGuidelines: true,
          });
          return res.status === 201 ? (res.body.data.id as string) : undefined;
        },
        { what: `a ${tier} license request`, timeoutMs: 30_000, intervalMs: 500 },
      );
    const approvedId = await request(chatty.key, 'creator', 'Fan chat avatar');
    const deniedId = await request(studio.key, 'commercial', 'Advertising campaign');
    const pending = await call(deployment.url, chatty.key, 'GET', `/v1/svc/licenses/request/${approvedId}`);
    expect(pending.body.data.status).toBe('pending');
    // Each request waiting for the creator is mailed to them (#30), naming who asks.
    for (const [who, tier, id] of [
      ['Chatty', 'creator', approvedId],
      ['Studio', 'commercial', deniedId],
    ] as const) {
      const told = await deployment.mail.waitFor(
        (m) => m.to.includes(alanEmail) && m.text.includes(id),
        30_000,
      );
      expect(told.subject).toBe(`A license request for ${name} is waiting for you`);
      // (newPlatform names each platform with a unique suffix.)
      expect(told.text).toMatch(new RegExp(`^${who} \\S+ asks for a ${tier} license of ${name} `, 'm'));
      expect(told.links).toContain(`${deployment.url}/dashboard/boxes/${boxId}`);
    }

    const chattyCard = page.getByRole('listitem').filter({ hasText: 'Chatty' });
    await refreshUntil(page, 'Refresh requests', chattyCard);
    expect(await chattyCard.getByText('Fan chat avatar').isVisible()).toBe(true);
    await chattyCard.getByRole('button', { name: /^Approve/ }).click();
    // Approved, it leaves the waiting list and shows among the licenses granted.
    await chattyCard.waitFor({ state: 'detached' });
    const granted = page.getByRole('region', { name: 'Licenses granted' });
    await granted.getByRole('row', { name: /Chatty/ }).waitFor();

    const approved = await call(deployment.url, chatty.key, 'GET', `/v1/svc/licenses/request/${approvedId}`);
    expect(approved.body.data).toMatchObject({ status: 'approved', license: { tier: 'creator' } });
    const licenseId = approved.body.data.license.id as string;
    expect(await granted.getByRole('cell', { name: licenseId }).isVisible()).toBe(true);
    expect(await page.getByRole('status').filter({ hasText: `Approved Chatty` }).textContent()).toContain(
      licenseId,
    );
    const license = await call(deployment.url, chatty.key, 'GET', `/v1/svc/licenses/${licenseId}`);
    expect(license.body.data.status).toBe('active');

    // Deny: an empty reason gets the API's own message next to the field; then a reason.
    const studioCard = page.getByRole('listitem').filter({ hasText: 'Studio' });
    await studioCard.getByRole('button', { name: /^Deny/ }).click();
    await studioCard.getByRole('button', { name: 'Deny request' }).click();
    const reasonError = studioCard
      .locator('.field', { has: page.getByLabel('Reason for denying') })
      .getByRole('alert');
    await reasonError.waitFor();
    expect((await reasonError.textContent())?.length).toBeGreaterThan(0);
    expect(await page.getByLabel('Reason for denying').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Reason for denying').fill('Not for advertising');
    await studioCard.getByRole('button', { name: 'Deny request' }).click();
    await studioCard.waitFor({ state: 'detached' });
    await page.getByText('No request is waiting for your decision.').waitFor();
    await page.getByRole('status').filter({ hasText: 'Denied Studio' }).waitFor();

    const denied = await call(deployment.url, studio.key, 'GET', `/v1/svc/licenses/request/${deniedId}`);
    expect(denied.body.data).toMatchObject({ status: 'denied', reason: 'Not for advertising' });

    // Every decision stays readable: the denied one with its reason.
    await page.getByLabel('Show requests').selectOption('denied');
    const deniedCard = page.getByRole('listitem').filter({ hasText: 'Studio' });
    await deniedCard.getByText('Not for advertising').waitFor();
    await refreshUntil(page, 'Refresh figures', page.getByText(/1 license is active now\./));
    await screenshot(page, 'creator-license-requests');

    // What the creator is owed shows on the royalties page (the approved license's fee).
    await page.getByRole('link', { name: 'Royalties' }).click();
    await page.getByRole('heading', { name: 'Royalties and fees' }).waitFor();
    await page.getByRole('heading', { name: 'Owed to you' }).waitFor();
    // The approved license's fee for the days left in this month is owed to the creator.
    expect(await page.getByLabel(/^Receivable:/).textContent()).not.toMatch(/^\D*0\.00\D*$/);
    await screenshot(page, 'creator-royalties');
    await context.close();
  });

  // Issue #32, "Budgets": a box page made 11 to 13 calls, and a few of them spent a session's
  // minute. Each page now loads with at most 3 calls: its reads of the public API go together.
  it('when a creator and a platform open each page of their dashboards, then each page loads with at most 3 API calls and has no serious accessibility violation', async () => {
    const calls: string[] = [];
    const inaccessible: string[] = [];
    const counted = (url: string) => {
      const { pathname } = new URL(url);
      return /^\/(dashboard\/api|v1\/svc|identity|licensing|revenue|enforcement)\//.test(pathname);
    };
    /** Opens a page from the navigation, as a user would, and counts the calls it makes until it is quiet. */
    async function open(page: Page, link: Locator, heading: string | RegExp): Promise<string[]> {
      calls.length = 0;
      await link.click();
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      // Quiet: no new call for a second (the parts that load after the page's first answers included).
      let seen = -1;
      for (let i = 0; i < 20 && seen !== calls.length; i += 1) {
        seen = calls.length;
        await page.waitForTimeout(1000);
      }
      const made = [...calls];
      // Every page as drawn once loaded: axe's serious and critical findings (none expected).
      inaccessible.push(...(await seriousViolations(page)));
      return made;
    }
    const perPage: Record<string, string[]> = {};

    const creator = await newVisitor(browser);
    const page = await creator.newPage();
    page.on('request', (request) => {
      if (counted(request.url())) calls.push(`${request.method()} ${new URL(request.url()).pathname}`);
    });
    await signUp(page, deployment, {
      email: uniqueEmail('thrifty'),
      name: 'Thrifty Estate',
      role: 'creator',
    });
    const name = `Ada Budget ${process.pid}${Date.now() % 100000}`;
    const boxId = await boxedInDashboard(page, name);
    const nav = page.getByRole('navigation', { name: 'Main' });
    perPage.claims = await open(page, nav.getByRole('link', { name: 'Claims' }), 'Your claims');
    perPage.claim = await open(page, page.getByRole('link', { name }).first(), name);
    perPage.boxes = await open(page, nav.getByRole('link', { name: 'Boxes' }), 'Your boxes');
    perPage.box = await open(page, page.getByRole('link', { name }).first(), `Box of ${name}`);
    expect(page.url()).toContain(boxId);
    // Opened afresh (a bookmark, a reload): nothing in the page's cache. The session is read once
    // per visit, not per page, and is left out.
    calls.length = 0;
    await page.goto(page.url());
    await page.getByRole('heading', { name: `Box of ${name}`, level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'Violations and grace periods', level: 2 }).waitFor();
    await page.waitForTimeout(1500);
    perPage.boxAfresh = calls.filter((call) => call !== 'GET /dashboard/api/session');
    perPage.royalties = await open(page, nav.getByRole('link', { name: 'Royalties' }), 'Royalties and fees');
    perPage.creatorOverview = await open(page, nav.getByRole('link', { name: 'Overview' }), /^Welcome/);
    await creator.close();

    const platform = await newVisitor(browser);
    const platformPage = await platform.newPage();
    platformPage.on('request', (request) => {
      if (counted(request.url())) calls.push(`${request.method()} ${new URL(request.url()).pathname}`);
    });
    await signUp(platformPage, deployment, {
      email: uniqueEmail('frugal'),
      name: 'Frugal Inc',
      role: 'platform',
    });
    const platformNav = platformPage.getByRole('navigation', { name: 'Main' });
    for (const [label, heading] of [
      ['API keys', 'API keys'],
      ['Request log', 'Request log'],
      ['Webhooks', 'Webhook endpoints'],
      ['Plan and usage', 'Plan and usage'],
      ['Licenses', 'Licenses and usage'],
      ['Violations', 'Violations'],
      ['Obligations', 'Obligations'],
      ['What you owe', 'What you owe'],
      ['Members', 'Members'],
      ['Overview', /^Welcome/],
    ] as const) {
      perPage[label] = await open(
        platformPage,
        platformNav.getByRole('link', { name: label, exact: true }),
        heading,
      );
    }
    await platform.close();

    const over = Object.entries(perPage).filter(([, made]) => made.length > 3);
    expect(over).toEqual([]);
    expect(inaccessible).toEqual([]);
    // The box page's twelve reads (the box, six months of statistics, requests, licenses,
    // violations) went as two batches; its scan's progress is the gateway's own.
    expect(perPage.boxAfresh?.filter((call) => call === 'POST /dashboard/api/batch')).toHaveLength(2);
  });
});
