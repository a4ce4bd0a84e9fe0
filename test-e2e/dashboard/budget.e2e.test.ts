import type { Browser } from 'playwright-core';
import {
  launchBrowser,
  newVisitor,
  screenshot,
  signUp,
  startDeployment,
  uniqueEmail,
  type Deployment,
} from './browser';

jest.setTimeout(300_000);

// Issue #32: a page of a dashboard whose request budget was spent showed only "Could not load the
// box: Rate limit exceeded", with no wait and no retry. Now it says how long it waits, waits out
// the API's Retry-After, and fills in by itself. The session's budget is made small here (8 calls a
// minute) so that a few page loads spend it.

describe('dashboard: a spent request budget in a real browser', () => {
  let deployment: Deployment;
  let browser: Browser;

  beforeAll(async () => {
    deployment = await startDeployment({ env: { DASHBOARD_CALLS_PER_MINUTE: '8' } });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await deployment?.stop();
  });

  it('when the session has spent its minute, then the page says how long it waits and loads by itself afterwards, without a reload', async () => {
    const context = await newVisitor(browser);
    const page = await context.newPage();
    const refusals: { status: number; retryAfter: string | null }[] = [];
    page.on('response', (response) => {
      if (response.status() === 429) {
        refusals.push({ status: 429, retryAfter: response.headers()['retry-after'] ?? null });
      }
    });
    await signUp(page, deployment, { email: uniqueEmail('budget'), name: 'Thrifty Inc', role: 'platform' });
    const notice = page.getByRole('status').filter({ hasText: /Too many requests from this dashboard/ });
    // Each load of the licenses page calls the public API; the ninth call of the minute is refused.
    let waited = false;
    for (let load = 0; load < 30 && !waited; load += 1) {
      await page.goto(`${deployment.url}/dashboard/licenses`);
      await page.getByRole('heading', { name: 'Licenses and usage' }).waitFor();
      waited = await notice
        .waitFor({ timeout: 1500 })
        .then(() => true)
        .catch(() => false);
    }
    expect(waited).toBe(true);
    expect(refusals.length).toBeGreaterThan(0);
    expect(Number(refusals[0]?.retryAfter)).toBeGreaterThanOrEqual(1);
    const said = (await notice.textContent()) ?? '';
    const seconds = Number(/trying again in (\d+) s/.exec(said)?.[1]);
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(60);
    // Nothing is shown as failed while it waits: the list is still loading, not an error.
    expect(await page.getByRole('alert').filter({ hasText: 'Could not load' }).count()).toBe(0);
    await screenshot(page, 'budget-waiting');

    // The minute's window ends; the page retries on its own and draws the list.
    await page.getByText('No licenses yet.').waitFor({ timeout: (seconds + 15) * 1000 });
    await notice.waitFor({ state: 'detached', timeout: 5000 });
    expect(await page.getByRole('alert').filter({ hasText: 'Could not load' }).count()).toBe(0);
    await context.close();
  });
});
