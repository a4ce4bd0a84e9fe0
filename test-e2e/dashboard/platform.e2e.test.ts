import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { seriousViolations } from './accessibility';
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

describe('dashboard: a platform developer manages keys and webhooks in a real browser', () => {
  let deployment: Deployment;
  let browser: Browser;
  let receiver: Server;
  let received: string[] = [];

  beforeAll(async () => {
    // The platform's webhook handler: answers 200 to every delivery.
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push(body);
        res.writeHead(200).end('ok');
      });
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

  const checkWith = (key: string) =>
    fetch(`${deployment.url}/v1/svc/claims`, { headers: { authorization: `Bearer ${key}` } }).then(
      async (res) => ({
        status: res.status,
        code: res.ok ? null : ((await res.json()) as { error: { code: string } }).error.code,
      }),
    );

  it('when a developer creates a named key, rotates it, revokes the old one after confirming and creates a check-only key, then each secret is shown once, the list tells the keys apart and the API refuses the revoked key and the restricted one’s other calls', async () => {
    const context = await newVisitor(browser);
    const page = await context.newPage();
    await signUp(page, deployment, { email: uniqueEmail('dev'), name: 'Avatars Inc', role: 'platform' });
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByText('No keys yet.').waitFor();

    await page.getByLabel('Name (optional)').fill('Production checks');
    await page.getByRole('button', { name: 'Create a key' }).click();
    const first = (await page.getByLabel('Secret', { exact: true }).textContent()) ?? '';
    expect(first).toMatch(/^svc_test_[0-9A-Za-z]{32,}$/);
    await page.getByRole('heading', { name: 'New key Production checks' }).waitFor();
    expect(await checkWith(first)).toEqual({ status: 200, code: null });
    await page.getByRole('button', { name: 'I have stored it' }).click();
    expect(await page.getByLabel('Secret', { exact: true }).count()).toBe(0);
    // The row: its name, the secret's last four characters, and (within seconds) its last use.
    const row = page.getByRole('row', { name: /Production checks/ });
    await row.getByText(`…${first.slice(-4)}`).waitFor();
    const lastUsed = () => row.getByRole('cell').nth(5).textContent();
    expect(await lastUsed()).toBe('Never');
    for (let tries = 0; tries < 20 && (await lastUsed()) === 'Never'; tries += 1) {
      await page.waitForTimeout(1000);
      await page.reload();
      await row.waitFor();
    }
    expect(await lastUsed()).toMatch(/\d/);

    // Rotation: a new secret, and the old key shown as expiring with its end; it still works.
    await page.getByRole('button', { name: 'Rotate Production checks' }).click();
    const second = (await page.getByLabel('Secret', { exact: true }).textContent()) ?? '';
    expect(second).not.toBe(first);
    await page.getByText(/keeps working until/).waitFor();
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('cell', { name: /expiring until/ }).waitFor();
    expect(await checkWith(first)).toEqual({ status: 200, code: null });

    // Revoking the old key before its 24 hours are up asks first; Cancel leaves it working.
    const expiringRow = page.getByRole('row', { name: /expiring until/ });
    await expiringRow.getByRole('button', { name: 'Revoke Production checks' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke Production checks?' });
    await dialog.getByText(`ending in ${first.slice(-4)}`).waitFor();
    await screenshot(page, 'platform-keys-confirm-revoke');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await dialog.count()).toBe(0);
    expect(await checkWith(first)).toEqual({ status: 200, code: null });

    await expiringRow.getByRole('button', { name: 'Revoke Production checks' }).click();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('Production checks is revoked: the API refuses it from now on.').waitFor();
    expect(await checkWith(first)).toEqual({ status: 401, code: 'KEY_REVOKED' });
    // No secret was shown (nothing replaced the key) and the rotated key still works.
    expect(await page.getByLabel('Secret', { exact: true }).count()).toBe(0);
    expect(await checkWith(second)).toEqual({ status: 200, code: null });
    await page.getByRole('cell', { name: 'revoked' }).waitFor();
    expect(await page.getByRole('row').count()).toBe(3);

    // A restricted key: identity checks only; the gateway refuses it anything else.
    await page.getByLabel('Name (optional)').fill('Avatar checks');
    await page.getByLabel('Scope').selectOption({ label: 'Identity checks only' });
    await page.getByRole('button', { name: 'Create a key' }).click();
    const restricted = (await page.getByLabel('Secret', { exact: true }).textContent()) ?? '';
    expect(await checkWith(restricted)).toEqual({ status: 403, code: 'FORBIDDEN' });
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page
      .getByRole('row', { name: /Avatar checks/ })
      .getByRole('cell', { name: 'Identity checks only' })
      .waitFor();
    await screenshot(page, 'platform-keys');

    // The request log (#32): each key's requests, found by the request id an answer carried.
    const logged = await fetch(`${deployment.url}/v1/svc/claims?limit=1`, {
      headers: { authorization: `Bearer ${restricted}` },
    });
    const requestId = logged.headers.get('x-request-id') ?? '';
    await page.getByRole('link', { name: 'Request log', exact: true }).click();
    await page.getByRole('heading', { name: 'Request log', level: 1 }).waitFor();
    const search = page.getByRole('search', { name: 'Find a request' });
    await search.getByLabel('Request id').fill(requestId);
    for (let attempt = 0; attempt < 10; attempt += 1) {
      await search.getByRole('button', { name: 'Find' }).click();
      if (await page.getByRole('cell', { name: requestId }).isVisible()) break;
      await page.waitForTimeout(500);
    }
    const logRow = page.getByRole('row').filter({ hasText: requestId });
    await logRow.getByText('GET /v1/svc/claims').waitFor();
    await logRow.getByText('403', { exact: true }).waitFor();
    await logRow.getByText('Avatar checks').waitFor();
    expect(await page.getByRole('row').count()).toBe(2);
    await search.getByLabel('Answer').selectOption('5xx');
    await page.getByText('No request matches.').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });

  it('when a developer adds a webhook endpoint and sends a test event, then the delivery and its attempt show in the log', async () => {
    const context = await newVisitor(browser, { phone: true });
    const page = await context.newPage();
    await signUp(page, deployment, { email: uniqueEmail('hooks'), name: 'Hooks Ltd', role: 'platform' });
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.getByText('No endpoints yet.').waitFor();

    // The API's message next to the field.
    await page.getByLabel('Endpoint URL').fill('not a url');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page
      .locator('.field', { has: page.getByLabel('Endpoint URL') })
      .getByRole('alert')
      .waitFor();

    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    await page.getByLabel('Endpoint URL').fill(url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    expect(await page.getByLabel('Secret', { exact: true }).textContent()).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page.getByRole('link', { name: url }).click();
    await page.getByText('No deliveries yet.').waitFor();

    received = [];
    await page.getByRole('button', { name: 'Send a test event' }).click();
    const delivery = page.locator('.deliveries > li').filter({ hasText: 'grace_period.started' });
    await delivery.getByText('succeeded', { exact: true }).waitFor({ timeout: 60_000 });
    await delivery.getByText('1 attempt').click();
    await delivery.getByText(/#1 .*: succeeded, HTTP 200/).waitFor();
    // What the receiver answered, and what was sent (#32).
    expect(await delivery.getByLabel(/^Answer to attempt #1 of /).textContent()).toBe('ok');
    await delivery.getByText('Payload', { exact: true }).click();
    const payload = JSON.parse((await delivery.getByLabel(/^Payload of /).textContent()) ?? '{}');
    expect(payload.type).toBe('grace_period.started');
    expect(received.map((body) => JSON.parse(body).id)).toContain(payload.id);
    expect(received.length).toBeGreaterThanOrEqual(1);
    await screenshot(page, 'platform-webhook-delivery');
    await context.close();
  });

  // Issue #32, "Webhooks" (Svix's bar): an endpoint receives only the events chosen, and is
  // changed, paused and deleted from the dashboard; the catalogue shows every event with an example.
  it('when a developer picks an endpoint’s events, changes them, disables, enables and deletes it, then the API holds each change, and the catalogue shows every event with an example', async () => {
    const context = await newVisitor(browser);
    const page = await context.newPage();
    await signUp(page, deployment, { email: uniqueEmail('svix'), name: 'Events Ltd', role: 'platform' });
    const endpoints = () =>
      page.evaluate(async () => {
        const res = await fetch('/v1/svc/webhooks');
        return (
          (await res.json()) as {
            data: { id: string; events: string[]; description: string | null; status: string }[];
          }
        ).data;
      });
    await page.getByRole('link', { name: 'Webhooks', exact: true }).click();

    // The catalogue: every event, each with its example body.
    await page.getByRole('link', { name: 'event catalogue' }).click();
    await page.getByRole('heading', { name: 'Event catalogue', level: 1 }).waitFor();
    expect(await page.getByRole('article').count()).toBe(13);
    const started = page.getByRole('article', { name: 'grace_period.started' });
    await started.getByText('Example body').click();
    expect(await started.getByLabel('Example body of grace_period.started').textContent()).toContain(
      '"type": "grace_period.started"',
    );
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Webhook endpoints' }).click();

    // Only two events.
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/picked`;
    await page.getByLabel('Endpoint URL').fill(url);
    await page.getByLabel('Only these:').check();
    await page.getByRole('checkbox', { name: /license\.approved/ }).check();
    await page.getByRole('checkbox', { name: /payment\.due/ }).check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('button', { name: 'I have stored it' }).click();
    expect((await endpoints())[0]?.events).toEqual(['license.approved', 'payment.due']);

    // Changed in place: none ticked is refused on the events; then one swapped, and a description.
    await page.getByRole('link', { name: url }).click();
    const settings = page.getByRole('form', { name: 'Endpoint settings' });
    await settings.getByRole('checkbox', { name: /license\.approved/ }).uncheck();
    await settings.getByRole('checkbox', { name: /payment\.due/ }).uncheck();
    await settings.getByRole('button', { name: 'Save changes' }).click();
    await settings.getByRole('alert').first().waitFor();
    await settings.getByRole('checkbox', { name: /license\.approved/ }).check();
    await settings.getByRole('checkbox', { name: /license\.denied/ }).check();
    await settings.getByLabel('Description').fill('License decisions');
    await settings.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    expect((await endpoints())[0]).toMatchObject({
      events: ['license.approved', 'license.denied'],
      description: 'License decisions',
    });
    await screenshot(page, 'platform-webhook-settings');
    expect(await seriousViolations(page)).toEqual([]);

    // Nothing failed yet: a replay says so (the dispatcher's suite replays real failures).
    await page.getByRole('button', { name: 'Replay failed deliveries' }).click();
    await page.getByRole('status').filter({ hasText: 'No failed delivery since then.' }).waitFor();

    // Paused, resumed, then deleted after a confirmation.
    await page.getByRole('button', { name: 'Disable endpoint' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Disabled/ })
      .waitFor();
    expect((await endpoints())[0]?.status).toBe('disabled');
    await page.getByRole('button', { name: 'Enable endpoint' }).click();
    await page.getByRole('status').filter({ hasText: 'Enabled.' }).waitFor();
    expect((await endpoints())[0]?.status).toBe('enabled');
    await page.getByRole('button', { name: 'Delete endpoint…' }).click();
    const dialog = page.getByRole('dialog', { name: `Delete ${url}?` });
    await dialog.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByText('No endpoints yet.').waitFor();
    expect(await endpoints()).toEqual([]);
    await context.close();
  });
});
