import { readFileSync } from 'node:fs';
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

describe('dashboard: a platform developer watches its plan, licenses and obligations in a real browser', () => {
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

  let keyCalls = 0;
  const call = async (key: string, method: string, path: string, body?: unknown) => {
    if (key !== deployment.sandboxKey) keyCalls += 1;
    const res = await fetch(`${deployment.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  /** A verified claim of the bootstrap platform, protected by a box. */
  const protectedIdentity = async (name: string, box: Record<string, unknown>) => {
    const owner = deployment.sandboxKey;
    const claim = await call(owner, 'POST', '/v1/svc/claims', {
      name,
      entityType: 'INDIVIDUAL',
      referenceImages: [{ url: 'https://img.example.com/reference.jpg' }],
    });
    expect(claim.status).toBe(201);
    expect(
      (await call(owner, 'POST', `/v1/svc/test-helpers/claims/${claim.body.data.id}/verify`, {})).status,
    ).toBe(200);
    const created = await call(owner, 'POST', '/v1/svc/boxes', { claimId: claim.body.data.id, ...box });
    expect(created.status).toBe(201);
    return created.body.data.id as string;
  };

  it('when a developer’s avatar breaks a box and it advances its sandbox clock past the grace period, then the dashboard shows its license usage, the violation, and the takedown it now owes', async () => {
    const unique = String(process.pid).replace(/\d/g, (d) => 'abcdefghij'[Number(d)] ?? 'x');
    const licensedName = `Cordelia Brightwater ${unique}`;
    const blockedName = `Ignatius Thornbury ${unique}`;
    const licensedBox = await protectedIdentity(licensedName, {
      policy: 'LICENSE',
      policyConfig: { licenseTypes: { personal: { price: 5, autoApprove: true } } },
    });
    await protectedIdentity(blockedName, { policy: 'BLOCK_ALL' });

    // At phone width: the developer signs up and creates the key its integration will use.
    const context = await newVisitor(browser, { phone: true });
    const page = await context.newPage();
    await signUp(page, deployment, {
      email: uniqueEmail('hoster'),
      name: 'Chatbots Ltd',
      role: 'platform',
    });
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByRole('button', { name: 'Create a key' }).click();
    const key = (await page.getByLabel('Secret', { exact: true }).textContent()) ?? '';
    await page.getByRole('button', { name: 'I have stored it' }).click();

    // Its integration licenses one identity and reports usage, and hosts an avatar of the other.
    const request = await call(key, 'POST', '/v1/svc/licenses/request', {
      boxId: licensedBox,
      tier: 'personal',
      useCase: 'Fan chat avatar',
      acceptGuidelines: true,
    });
    expect(request.status).toBe(201);
    const requestDetail = await call(key, 'GET', `/v1/svc/licenses/request/${request.body.data.id}`);
    const licenseId = requestDetail.body.data.license.id as string;
    const usage = await call(key, 'POST', `/v1/svc/licenses/${licenseId}/usage`, {
      period: new Date().toISOString().slice(0, 7),
      metrics: { subscribers: 42, messages: 7 },
      revenue: { subscriptions: 120 },
    });
    expect(usage.status).toBe(201);
    let violationId: string | undefined;
    for (let attempt = 0; attempt < 60 && violationId === undefined; attempt += 1) {
      const avatar = await call(key, 'POST', '/v1/svc/avatars', {
        id: 'avatar-thornbury',
        name: blockedName,
        creatorId: 'creator-7',
        userCount: 150,
      });
      violationId = avatar.body.data?.openViolations?.[0];
      if (violationId === undefined) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(violationId).toBeDefined();

    // Plan and usage: the sandbox plan's limits, and the key's calls counted against them.
    await page.getByRole('link', { name: 'Plan and usage' }).click();
    await page.getByText('60 requests a minute, 1,000 a day, per key').waitFor();
    const keyCard = page.locator('.card').filter({ has: page.getByRole('heading', { name: /^key_/ }) });
    // Every call its key made so far is counted (and reading the usage counts nothing).
    await keyCard.getByText(`Today (UTC): ${keyCalls} of 1,000 requests`).waitFor();

    // Licenses, and the usage reported for this period.
    await page.getByRole('link', { name: 'Licenses', exact: true }).click();
    await page.getByRole('link', { name: licensedName }).click();
    await page.getByRole('heading', { name: `${licensedName}: personal license` }).waitFor();
    const reported = page.getByRole('definition').filter({ hasText: '$120.00' });
    await reported.waitFor();
    await page.getByRole('definition').filter({ hasText: /^42$/ }).waitFor();

    // The violation, pending in its grace period. A script moved the sandbox clock 6 hours first:
    // the 24-hour grace period ends in 17 to 18 hours on that clock, not in "30 days".
    const early = await call(key, 'POST', '/v1/svc/test-helpers/advance-time', { seconds: 6 * 3600 });
    expect(early.status).toBe(200);
    await page.getByRole('link', { name: 'Violations', exact: true }).click();
    const row = page.getByRole('row').filter({ hasText: blockedName });
    await row.getByText('pending', { exact: true }).waitFor();
    await row.getByText(/\(in 1[78] hours\)/).waitFor();
    expect(await row.textContent()).not.toMatch(/days? left/);

    // Obligations: the grace period runs; nothing to take down yet.
    await page.getByRole('link', { name: 'Obligations', exact: true }).click();
    await page.getByText('Nothing to take down.', { exact: false }).waitFor();
    await page.getByRole('row').filter({ hasText: blockedName }).getByText('active').waitFor();

    // The sandbox clock moves 25 hours: the 24-hour grace period runs out and enforcement fires.
    const clock = page.getByRole('form', { name: 'Sandbox clock' });
    await clock
      .getByLabel('Advance by')
      .selectOption({ label: '25 hours (past the end of a 24-hour grace period)' });
    await clock.getByRole('button', { name: 'Advance time' }).click();
    await clock
      .getByRole('status')
      .filter({ hasText: /timed steps? fired/ })
      .waitFor();
    const takedown = page.getByRole('table', { name: 'Avatars to take down, newest first' });
    await takedown.getByRole('row').filter({ hasText: 'avatar-thornbury' }).waitFor();
    await page.getByText('No grace period running.', { exact: false }).waitFor();
    expect((await call(key, 'GET', `/v1/svc/violations/${violationId}`)).body.data.status).toBe('enforced');

    await page.getByRole('link', { name: 'Violations', exact: true }).click();
    await page
      .getByRole('row')
      .filter({ hasText: blockedName })
      .getByText('enforced', { exact: true })
      .waitFor();
    await page.getByRole('link', { name: 'Obligations', exact: true }).click();
    await takedown.getByRole('row').filter({ hasText: 'avatar-thornbury' }).waitFor();
    await screenshot(page, 'platform-obligations');
    await context.close();
  });

  // Issue #32, "Platforms": a license is managed from the dashboard, not only read there.
  it('when a developer reports usage, renews and cancels a license from the dashboard, then the API answers the same, and a bad period is named on its field', async () => {
    const unique = String(process.pid).replace(/\d/g, (d) => 'abcdefghij'[Number(d)] ?? 'x');
    const name = `Rosalind Ashdown ${unique}`;
    const boxId = await protectedIdentity(name, {
      policy: 'LICENSE',
      // A fee high enough that even the last minutes of a month, prorated, are owed (a cent at least).
      policyConfig: { licenseTypes: { personal: { price: 100_000, autoApprove: true } } },
    });
    const context = await newVisitor(browser);
    const page = await context.newPage();
    await signUp(page, deployment, { email: uniqueEmail('manager'), name: 'Avatars Ltd', role: 'platform' });
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByRole('button', { name: 'Create a key' }).click();
    const key = (await page.getByLabel('Secret', { exact: true }).textContent()) ?? '';
    await page.getByRole('button', { name: 'I have stored it' }).click();
    const request = await call(key, 'POST', '/v1/svc/licenses/request', {
      boxId,
      tier: 'personal',
      useCase: 'Companion avatar',
      acceptGuidelines: true,
    });
    expect(request.status).toBe(201);
    const licenseId = (await call(key, 'GET', `/v1/svc/licenses/request/${request.body.data.id}`)).body.data
      .license.id as string;
    const before = (await call(key, 'GET', `/v1/svc/licenses/${licenseId}`)).body.data;

    await page.getByRole('link', { name: 'Licenses', exact: true }).click();
    await page.getByRole('link', { name }).click();
    await page.getByRole('heading', { name: `${name}: personal license`, level: 1 }).waitFor();
    const manage = page.getByRole('region', { name: 'Manage this license' });
    const notice = manage.getByRole('status');

    // A period that is no month: the API's message on the field, nothing reported.
    const periodField = manage.getByLabel('Period');
    const period = await periodField.inputValue();
    expect(period).toMatch(/^\d{4}-\d{2}$/);
    await periodField.fill('2026-13');
    await manage.getByLabel('Subscribers').fill('12');
    await manage.getByLabel('Subscription revenue (USD)').fill('250.50');
    await manage.getByRole('button', { name: 'Report usage' }).click();
    await manage.getByRole('alert').filter({ hasText: 'expected YYYY-MM' }).waitFor();
    expect(await periodField.getAttribute('aria-invalid')).toBe('true');
    expect((await call(key, 'GET', `/v1/svc/licenses/${licenseId}`)).body.data.usage.revenue).toBe(0);

    await periodField.fill(period);
    await manage.getByRole('button', { name: 'Report usage' }).click();
    await notice.filter({ hasText: `Reported ${period}: revenue $250.50, royalty due` }).waitFor();
    await page.getByRole('definition').filter({ hasText: '$250.50' }).first().waitFor();
    const reported = (await call(key, 'GET', `/v1/svc/licenses/${licenseId}`)).body.data;
    expect(reported.usage).toMatchObject({ revenue: 250.5, subscribers: 12 });

    // Renewed by six months.
    await manage.getByLabel('Months to add').fill('6');
    await manage.getByRole('button', { name: 'Renew license' }).click();
    await notice.filter({ hasText: /^Renewed: valid until/ }).waitFor();
    const renewed = (await call(key, 'GET', `/v1/svc/licenses/${licenseId}`)).body.data;
    const months = (Date.parse(renewed.expiresAt) - Date.parse(before.expiresAt)) / (30.44 * 86_400_000);
    expect(Math.round(months)).toBe(6);
    await screenshot(page, 'platform-license-manage');
    const inaccessible = await seriousViolations(page);

    // What the platform owes: this month's fee by month, and every line as CSV. Billing learns of
    // the license from events: the page is opened once the balance has its lines and is settled.
    type Line = {
      license_id: string;
      period: string;
      kind: string;
      amount: number;
      recipient: string;
      due_date: string;
    };
    let owed: { currency: string; pending_payouts: Line[] } | undefined;
    for (let attempt = 0; attempt < 60; attempt += 1) {
      const read = (await call(key, 'GET', '/revenue/balance')).body;
      const has = read.pending_payouts.some((line: Line) => line.license_id === licenseId);
      if (has && owed !== undefined && JSON.stringify(read) === JSON.stringify(owed)) break;
      owed = has ? read : undefined;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    if (owed === undefined) throw new Error('billing never showed the license’s fee');
    // The license's fee (of the month it was approved in: the month may have turned since).
    const thisMonth = owed.pending_payouts.filter((line) => line.license_id === licenseId);
    expect(thisMonth.length).toBeGreaterThan(0);
    await page.getByRole('link', { name: 'What you owe', exact: true }).click();
    await page.getByRole('heading', { name: 'What you owe', level: 1 }).waitFor();
    const byMonth = page.getByRole('table', { name: 'By month' });
    await byMonth.getByRole('row').nth(1).waitFor();
    expect(await byMonth.getByRole('row').count()).toBe(
      1 + new Set(owed.pending_payouts.map((line) => line.period)).size,
    );
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download as CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('owed.csv');
    const csv = readFileSync((await download.path()) ?? '', 'utf8').split('\r\n');
    expect(csv[0]).toBe('period,kind,license_id,identity,recipient,amount,currency,due_date');
    for (const line of thisMonth) {
      expect(csv).toContain(
        [
          line.period,
          line.kind,
          licenseId,
          name,
          line.recipient,
          line.amount.toFixed(2),
          owed.currency,
          line.due_date,
        ].join(','),
      );
    }
    await screenshot(page, 'platform-owed');
    await page.goBack();
    await page.getByRole('heading', { name: `${name}: personal license`, level: 1 }).waitFor();

    // Cancelled at once, after a confirmation.
    await manage.getByRole('button', { name: 'Cancel license…' }).click();
    const dialog = page.getByRole('dialog', { name: `Cancel the personal license of ${name}?` });
    await dialog.getByLabel('At once').check();
    inaccessible.push(...(await seriousViolations(page)));
    expect(inaccessible).toEqual([]);
    await dialog.getByLabel('Reason (optional)').fill('The avatar was retired');
    await dialog.getByRole('button', { name: 'Cancel license', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await notice.filter({ hasText: /^Cancelled/ }).waitFor();
    await manage.getByText('This license is cancelled').waitFor();
    expect((await call(key, 'GET', `/v1/svc/licenses/${licenseId}`)).body.data.status).toBe('cancelled');
    await context.close();
  });

  // Issue #32, "Platforms": a violation has a page of its own, with what happened when, and the
  // platform resolves or appeals it there, the API checking each as for any caller.
  it('when a developer opens a violation, then it sees its timeline, a resolution the facts refuse says why, an appeal pauses it, and removing the avatar resolves it', async () => {
    const unique = String(process.pid).replace(/\d/g, (d) => 'abcdefghij'[Number(d)] ?? 'x');
    const name = `Bartholomew Quillfeather ${unique}`;
    await protectedIdentity(name, { policy: 'BLOCK_ALL' });
    const context = await newVisitor(browser);
    const page = await context.newPage();
    await signUp(page, deployment, { email: uniqueEmail('appeals'), name: 'Personas Ltd', role: 'platform' });
    await page.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByRole('button', { name: 'Create a key' }).click();
    const key = (await page.getByLabel('Secret', { exact: true }).textContent()) ?? '';
    await page.getByRole('button', { name: 'I have stored it' }).click();
    let violationId: string | undefined;
    for (let attempt = 0; attempt < 60 && violationId === undefined; attempt += 1) {
      const avatar = await call(key, 'POST', '/v1/svc/avatars', {
        id: 'avatar-quill',
        name,
        creatorId: 'creator-9',
        userCount: 20,
      });
      violationId = avatar.body.data?.openViolations?.[0];
      if (violationId === undefined) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(violationId).toBeDefined();

    await page.getByRole('link', { name: 'Violations', exact: true }).click();
    await page.getByRole('link', { name }).click();
    await page.getByRole('heading', { name: `${name}: violation of ${name}`, level: 1 }).waitFor();
    const timeline = page.getByRole('list', { name: 'Timeline' });
    await timeline.getByText('Detected').waitFor();

    // "Licensed" without a license is refused on the License field; "modified" while the avatar
    // still matches is refused by the facts, and the API's reason shows.
    const resolve = page.getByRole('form', { name: 'Resolve' });
    await resolve.getByLabel('Resolution').selectOption('licensed');
    await resolve.getByLabel('License').waitFor();
    await resolve.getByRole('button', { name: 'Resolve violation' }).click();
    await resolve.getByRole('alert').first().waitFor();
    expect(await resolve.getByLabel('License').getAttribute('aria-invalid')).toBe('true');
    await resolve.getByLabel('Resolution').selectOption('modified');
    await resolve.getByRole('button', { name: 'Resolve violation' }).click();
    const refused = resolve.locator('.form-error');
    await refused.waitFor();
    expect((await refused.textContent())?.length).toBeGreaterThan(10);
    expect((await call(key, 'GET', `/v1/svc/violations/${violationId}`)).body.data.status).toBe('pending');

    // An appeal without its explanation is refused on that field; with it, the grace period pauses.
    const appeal = page.getByRole('form', { name: 'Appeal' });
    await appeal.getByLabel('Reason').selectOption('common_name');
    await appeal.getByRole('button', { name: 'Appeal violation' }).click();
    await appeal.getByRole('alert').first().waitFor();
    expect(await appeal.getByLabel('Explanation').getAttribute('aria-invalid')).toBe('true');
    await appeal.getByLabel('Explanation').fill('Our avatar is a fictional wizard of the same name.');
    await appeal.getByRole('button', { name: 'Appeal violation' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Appealed: the grace period is paused/ })
      .waitFor();
    await timeline.getByText('Appealed (common name)').waitFor();
    expect((await call(key, 'GET', `/v1/svc/violations/${violationId}`)).body.data.status).toBe('appealed');
    await screenshot(page, 'platform-violation-detail');
    expect(await seriousViolations(page)).toEqual([]);

    // Taking the avatar down resolves it (the appeal is withdrawn).
    await resolve.getByLabel('Resolution').selectOption('removed');
    await resolve.getByRole('button', { name: 'Resolve violation' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^Resolved \(removed\)/ })
      .waitFor();
    const resolved = (await call(key, 'GET', `/v1/svc/violations/${violationId}`)).body.data;
    expect(resolved.status).toBe('resolved');
    expect(resolved.resolution).toBe('removed');
    await timeline.getByText('Resolved: removed').waitFor();
    await context.close();
  });
});
