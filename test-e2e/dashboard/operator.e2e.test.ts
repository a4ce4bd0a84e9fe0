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
import { seriousViolations } from './accessibility';
import { totpCodeAt } from './otp';

jest.setTimeout(300_000);

describe('dashboard: the operator reviews in a real browser', () => {
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

  /** A call with the printed sandbox key (the "bootstrap" platform). */
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${deployment.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${deployment.sandboxKey}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('when the operator signs in with the token, then they see platforms and creators, change a plan, and decide a waiting claim and a pending appeal from their lists', async () => {
    // A creator signs up: their tenant is listed for the operator.
    const creator = await newVisitor(browser);
    const creatorPage = await creator.newPage();
    await signUp(creatorPage, deployment, {
      email: uniqueEmail('estate'),
      name: 'Lovelace Estate',
      role: 'creator',
    });
    await creator.close();

    // A platform's avatar breaks a box and the platform appeals (through the API, with the sandbox key).
    const name = `Octavia Quillfeather ${String(process.pid).replace(/\d/g, (d) => 'abcdefghij'[Number(d)] ?? 'x')}`;
    const claim = await api('POST', '/v1/svc/claims', {
      name,
      entityType: 'INDIVIDUAL',
      referenceImages: [{ url: 'https://img.example.com/octavia.jpg' }],
    });
    expect(claim.status).toBe(201);
    expect((await api('POST', `/v1/svc/test-helpers/claims/${claim.body.data.id}/verify`, {})).status).toBe(
      200,
    );
    expect(
      (await api('POST', '/v1/svc/boxes', { claimId: claim.body.data.id, policy: 'BLOCK_ALL' })).status,
    ).toBe(201);
    let violationId: string | undefined;
    for (let attempt = 0; attempt < 60 && violationId === undefined; attempt += 1) {
      const avatar = await api('POST', '/v1/svc/avatars', {
        id: 'avatar-1',
        name,
        creatorId: 'c-1',
        userCount: 10,
      });
      violationId = avatar.body.data?.openViolations?.[0];
      if (violationId === undefined) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(violationId).toBeDefined();
    const appeal = await api('POST', `/v1/svc/violations/${violationId}/appeal`, {
      reason: 'common_name',
      explanation: 'A different Octavia',
    });
    expect(appeal.status).toBe(200);
    const appealId = appeal.body.data.appeal.id as string;
    // And a second claim waits for verification.
    const waiting = await api('POST', '/v1/svc/claims', {
      name: `${name} Junior`,
      entityType: 'INDIVIDUAL',
      referenceImages: [{ url: 'https://img.example.com/junior.jpg' }],
    });

    const context = await newVisitor(browser);
    const page = await context.newPage();
    await page.goto(`${deployment.url}/dashboard/operator-sign-in`);
    await page.getByLabel('Operator token').fill('not the token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('wrong operator token').waitFor();
    await page.getByLabel('Operator token').fill(deployment.adminToken);
    // The operator's second factor (#30): a code of the secret make dev printed.
    await page.getByLabel('Authenticator code').fill(totpCodeAt(deployment.adminTotpSecret));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Open operations' }).click();
    await page.getByText('Every service answered.').waitFor();
    // System health: the gateway and every service of the deployment, each ready, in a table.
    const health = page.getByRole('table', { name: /System health/ });
    expect(await health.getByRole('columnheader').allTextContents()).toEqual([
      'Service',
      'Ready',
      'Outbox backlog',
      'Oldest unsent',
      'Dead letters',
    ]);
    const services = [
      'gateway',
      'registry',
      'detection',
      'licensing',
      'enforcement',
      'billing',
      'webhook-dispatcher',
    ];
    for (const service of services) {
      const row = health
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: service, exact: true }) });
      await row.getByText('Ready', { exact: true }).waitFor();
    }
    expect(await health.getByRole('rowheader').allTextContents()).toEqual(services);
    expect(await health.getByText('Not ready').count()).toBe(0);
    const registryRow = health
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: 'registry' }) });
    expect(await registryRow.getByRole('cell').allTextContents()).toEqual([
      'Ready',
      expect.stringMatching(/^\d+$/),
      expect.any(String),
      '0',
    ]);
    // At phone width the page does not scroll sideways: the table scrolls within its own box.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await screenshot(page, 'operator-health-phone');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole('link', { name: 'Appeals awaiting a decision: 1' }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });

    // Platforms and creators: the creator is listed as one; the bootstrap platform moves to basic.
    await nav.getByRole('link', { name: 'Platforms and creators' }).click();
    await page.getByLabel('Show').selectOption('creator');
    const estate = page.getByRole('row').filter({ hasText: 'Lovelace Estate' });
    await estate.getByRole('cell', { name: 'creator', exact: true }).waitFor();
    await page.getByLabel('Show').selectOption('platform');
    const bootstrap = page.getByRole('row').filter({ hasText: 'bootstrap' });
    await bootstrap.getByRole('combobox', { name: 'Plan of bootstrap' }).selectOption('basic');
    await bootstrap.getByRole('button', { name: 'Change plan' }).click();
    await bootstrap.getByRole('cell', { name: '300/min, 50,000/day' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    const limited = await fetch(`${deployment.url}/v1/svc/claims`, {
      headers: { authorization: `Bearer ${deployment.sandboxKey}` },
    });
    expect(limited.headers.get('x-ratelimit-limit')).toBe('300');

    // The waiting claim, in the review queue: verified at GOLD, it leaves the queue.
    await nav.getByRole('link', { name: 'Claims to verify' }).click();
    const waitingForm = page.getByRole('form', { name: `Decide the claim of ${name} Junior` });
    await waitingForm.getByLabel('Decision').selectOption('GOLD');
    await waitingForm.getByRole('button', { name: 'Decide' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Claim of ${name} Junior verified (GOLD).` })
      .waitFor();
    await waitingForm.waitFor({ state: 'detached' });
    expect((await api('GET', `/v1/svc/claims/${waiting.body.data.id}`)).body.data).toMatchObject({
      status: 'verified',
      verificationTier: 'GOLD',
    });

    // The pending appeal, with its violation, in the appeals list: upheld, the violation is dismissed.
    await nav.getByRole('link', { name: 'Appeals', exact: true }).click();
    const appealCard = page.getByRole('listitem').filter({ hasText: 'A different Octavia' });
    await appealCard.getByText('A common name, not the protected person').waitFor();
    await appealCard.getByText(violationId ?? '').waitFor();
    const appealForm = page.getByRole('form', { name: `Decide the appeal about ${name}` });
    await appealForm.getByLabel('Outcome').selectOption('upheld');
    await appealForm.getByLabel('Notes').fill('A common name');
    await appealForm.getByRole('button', { name: 'Decide' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Appeal about ${name}: upheld.` })
      .waitFor();
    await page.getByText('No appeal is waiting.').waitFor();
    expect((await api('GET', `/v1/svc/violations/${violationId}`)).body.data.status).toBe('dismissed');
    expect((await api('GET', `/v1/svc/appeals/${appealId}`)).body.data).toMatchObject({
      status: 'upheld',
      notes: 'A common name',
    });
    await screenshot(page, 'operator-decisions');

    // The operator's session is no platform: the public API refuses it.
    const status = await page.evaluate(async () => (await fetch('/v1/svc/claims')).status);
    expect(status).toBe(403);
    await context.close();
  });

  it('when a second account claims a name a creator protects, then the owner is mailed, the operator sees both claims side by side with their names and rejects with a reason the claimant reads', async () => {
    const name = `Charles Babbage ${String(process.pid).replace(/\d/g, (d) => 'klmnopqrst'[Number(d)] ?? 'x')}`;
    const claimThroughForm = async (page: import('playwright-core').Page, claimed: string) => {
      await page.getByRole('link', { name: 'Claims' }).click();
      await page.getByRole('link', { name: 'Claim an identity' }).click();
      // The form's own page, before its Name field is filled (the claims list has a search by name).
      await page.getByRole('heading', { name: 'Claim an identity', level: 1 }).waitFor();
      await page.getByLabel('Name').fill(claimed);
      await page.getByLabel(/Reference pictures/).fill('https://images.example.com/babbage.jpg');
      await page.getByRole('button', { name: 'Claim' }).click();
      await page.getByRole('heading', { name: claimed }).waitFor();
      return page.url();
    };

    // The estate claims and verifies the name (sandbox verification).
    const ownerEmail = uniqueEmail('babbage');
    const owner = await newVisitor(browser);
    const ownerPage = await owner.newPage();
    await signUp(ownerPage, deployment, { email: ownerEmail, name: 'Babbage Estate', role: 'creator' });
    await claimThroughForm(ownerPage, name);
    await ownerPage.getByRole('button', { name: 'Complete verification (sandbox)' }).click();
    await ownerPage.getByText('verified', { exact: true }).waitFor();
    await owner.close();

    // Another account claims the same name, written in lower case.
    const claimant = await newVisitor(browser);
    const claimantPage = await claimant.newPage();
    await signUp(claimantPage, deployment, {
      email: uniqueEmail('claimant'),
      name: 'Difference Engines Ltd',
      role: 'creator',
    });
    const claimUrl = await claimThroughForm(claimantPage, name.toLowerCase());

    // The estate is told, without being told who.
    const told = await deployment.mail.waitFor(
      (m) => m.to.includes(ownerEmail) && m.subject.startsWith('Another account claims'),
      30_000,
    );
    expect(told.subject).toBe(`Another account claims ${name.toLowerCase()}, a name you protect`);
    expect(told.text).not.toContain('Difference Engines');

    // The operator (a code of the next time step: the first test's code signed in once already).
    const context = await newVisitor(browser);
    const page = await context.newPage();
    await page.goto(`${deployment.url}/dashboard/operator-sign-in`);
    await page.getByLabel('Operator token').fill(deployment.adminToken);
    await page
      .getByLabel('Authenticator code')
      .fill(totpCodeAt(deployment.adminTotpSecret, new Date(Date.now() + 30_000)));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Open operations' }).click();
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Claims to verify' })
      .click();
    // Found by name among every waiting claim.
    const find = page.getByRole('search', { name: 'Find a claim' });
    await find.getByLabel('Find by name').fill('no such person');
    await find.getByRole('button', { name: 'Find' }).click();
    await page.getByText('No pending claim whose name contains “no such person”.').waitFor();
    await find.getByLabel('Find by name').fill(name.split(' ').at(-1) ?? name);
    await find.getByRole('button', { name: 'Find' }).click();
    const card = page.getByRole('listitem').filter({
      has: page.getByRole('form', { name: `Decide the claim of ${name.toLowerCase()}` }),
    });
    await card.getByText('Already protected by another account').waitFor();
    // Names, not ids: the claimant and the existing owner, side by side.
    await card.getByText('Difference Engines Ltd (creator)').waitFor();
    const existing = card.getByRole('listitem').filter({ hasText: 'Babbage Estate (creator)' });
    await existing.getByText('verified SILVER').waitFor();
    expect(await existing.getByRole('heading', { name: new RegExp(name) }).isVisible()).toBe(true);
    await screenshot(page, 'operator-claim-conflict');

    const form = page.getByRole('form', { name: `Decide the claim of ${name.toLowerCase()}` });
    await form.getByLabel('Decision').selectOption('reject');
    await form
      .getByLabel(/Reason/)
      .fill('This name is verified for its estate. Send proof that you hold it.');
    await form.getByRole('button', { name: 'Decide' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Claim of ${name.toLowerCase()} rejected.` })
      .waitFor();
    await context.close();

    // The claimant reads the reason on the claim's page.
    await claimantPage.goto(claimUrl);
    await claimantPage.getByRole('heading', { name: 'The operator rejected this claim' }).waitFor();
    await claimantPage
      .getByText('This name is verified for its estate. Send proof that you hold it.')
      .waitFor();
    await claimant.close();
  });
});
