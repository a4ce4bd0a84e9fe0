import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
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

// Issue #20: long operations show their progress. A new box's initial scan is followed on the box
// page until it completes (with what it found), and a re-sent webhook delivery's new attempt is
// followed on its row until it settles.

jest.setTimeout(300_000);

describe('dashboard: long operations show their progress in a real browser', () => {
  let deployment: Deployment;
  let browser: Browser;
  let receiver: Server;
  let answer = 200;

  beforeAll(async () => {
    // The platform's webhook handler: answers `answer` to every delivery.
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(answer).end('ok'));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    deployment = await startDeployment();
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await deployment?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it("when a creator boxes an identity another platform's avatar already uses, then the box page follows the initial scan until it completes with the violation it found", async () => {
    const suffix = `${process.pid}${Date.now() % 100000}`;
    const name = `Hedy Lamarr ${suffix}`;
    // Reported before the box exists: only the box's initial scan can find it.
    const host = await newPlatform(
      { gatewayUrl: deployment.url, adminToken: deployment.adminToken },
      'Early Hub',
    );
    const reported = await call(deployment.url, host.key, 'POST', '/v1/svc/avatars', {
      id: 'avatar-before-box',
      name,
      creatorId: 'user-1',
      userCount: 500,
    });
    expect(reported.status).toBe(201);

    const context = await newVisitor(browser, { phone: true });
    const page = await context.newPage();
    await signUp(page, deployment, {
      email: uniqueEmail('hedy'),
      name: 'Lamarr Estate',
      role: 'creator',
    });
    await page.getByRole('link', { name: 'Claims' }).click();
    await page.getByRole('link', { name: 'Claim an identity' }).click();
    // The form's own page, before its Name field is filled (the claims list has a search by name).
    await page.getByRole('heading', { name: 'Claim an identity', level: 1 }).waitFor();
    await page.getByLabel('Name').fill(name);
    await page.getByLabel(/Reference pictures/).fill('https://images.example.com/hedy.jpg');
    await page.getByRole('button', { name: 'Claim' }).click();
    await page.getByRole('heading', { name }).waitFor();
    await page.getByRole('button', { name: 'Complete verification (sandbox)' }).click();
    await page.getByText('verified', { exact: true }).waitFor();
    await page.getByLabel('Policy').selectOption('BLOCK_ALL');
    await page.getByRole('button', { name: 'Protect with this box' }).click();
    await page.getByRole('heading', { name: `Box of ${name}` }).waitFor();

    const scan = page.getByRole('region', { name: 'Initial scan' });
    const status = scan.getByRole('status');
    await status.waitFor();
    // Followed without a reload until it completes, then no longer busy.
    await status.filter({ hasText: /^Completed .*: 1 avatar scanned, 1 violation found\.$/ }).waitFor({
      timeout: 120_000,
    });
    expect(await scan.getAttribute('aria-busy')).toBe('false');
    expect(await scan.getByRole('progressbar').count()).toBe(0);
    expect(await status.getAttribute('aria-live')).toBe('polite');
    // What it found is on the page too: the violations list was read again.
    const found = page
      .getByRole('table', { name: 'Violations of this box, newest first' })
      .getByRole('row')
      .filter({ hasText: /Early Hub / }); // the hosting platform, by name
    await found.waitFor({ timeout: 30_000 });
    expect(await found.count()).toBe(1);
    await screenshot(page, 'progress-box-scan');
    await context.close();
  });

  it('when a developer re-sends a delivery, then its row follows the new attempt until it is delivered or failed', async () => {
    const context = await newVisitor(browser);
    const page = await context.newPage();
    await signUp(page, deployment, {
      email: uniqueEmail('resend'),
      name: 'Resend Ltd',
      role: 'platform',
    });
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    await page.getByLabel('Endpoint URL').fill(url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('link', { name: url }).click();

    answer = 200;
    await page.getByRole('button', { name: 'Send a test event' }).click();
    const delivery = page.locator('.deliveries > li').filter({ hasText: 'grace_period.started' });
    await delivery.getByText('succeeded', { exact: true }).waitFor({ timeout: 60_000 });

    // The handler now fails: the re-send's attempt settles as failed, with the answer.
    answer = 503;
    await delivery.getByRole('button', { name: /^Re-send delivery/ }).click();
    const progress = delivery.getByRole('status').filter({ hasText: /Re-s/ });
    await progress.filter({ hasText: 'Re-sent: attempt #2 failed (HTTP 503' }).waitFor({ timeout: 60_000 });
    expect(await delivery.getAttribute('aria-busy')).toBe('false');

    // Fixed: the next re-send is followed to delivered.
    answer = 200;
    await delivery.getByRole('button', { name: /^Re-send delivery/ }).click();
    await progress
      .filter({ hasText: /Re-sent: attempt #\d+ delivered \(HTTP 200\)\./ })
      .waitFor({ timeout: 60_000 });
    await screenshot(page, 'progress-webhook-resend');
    await context.close();
  });
});
