import type { Browser } from 'playwright-core';
import {
  launchBrowser,
  newVisitor,
  screenshot,
  signUp,
  startDeployment,
  uniqueEmail,
  waitForPage,
  type Deployment,
} from './browser';

jest.setTimeout(300_000);

describe('dashboard: a creator claims, verifies and protects an identity in a real browser', () => {
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

  it('when a creator claims, verifies in the sandbox and boxes an identity, then each state shows, the form shows the API’s errors, and another account gets not found', async () => {
    const context = await newVisitor(browser);
    const page = await context.newPage();
    const suffix = `${process.pid}${Date.now() % 100000}`;
    const name = `Ada Lovelace ${suffix}`;
    await signUp(page, deployment, { email: uniqueEmail('ada'), name: 'Ada Estate', role: 'creator' });

    await page.getByRole('link', { name: 'Claims' }).click();
    await page.getByText('No claims yet.').waitFor();
    // Each page names its tab after its heading (issue #32: one title for every page).
    expect(await page.title()).toBe('Your claims · Identity protection');
    await page.getByRole('link', { name: 'Claim an identity' }).click();
    await page.getByRole('heading', { name: 'Claim an identity' }).waitFor();
    expect(await page.title()).toBe('Claim an identity · Identity protection');

    // The API's message next to the field: no reference picture.
    await page.getByLabel('Name').fill(name);
    await page.getByRole('button', { name: 'Claim' }).click();
    await page.getByText('at least one reference image is required').waitFor();

    await page
      .getByLabel('Variations (one per line)')
      .fill(`Ada L ${suffix}\nCountess of Lovelace ${suffix}`);
    await page.getByLabel(/Reference pictures/).fill('https://images.example.com/ada.jpg');
    await page.getByRole('button', { name: 'Claim' }).click();
    await page.getByRole('heading', { name }).waitFor();
    const claimUrl = page.url();
    // A heading drawn once the claim has loaded names the tab too.
    await waitForPage(page, `document.title === ${JSON.stringify(`${name} · Identity protection`)}`);
    expect(await page.getByText('pending', { exact: true }).isVisible()).toBe(true);

    await page.getByRole('button', { name: 'Complete verification (sandbox)' }).click();
    await page.getByText('verified', { exact: true }).waitFor();
    expect(await page.getByText('SILVER').isVisible()).toBe(true);

    // The box form follows the policy: LICENSE shows the tiers.
    await page.getByLabel('Policy').selectOption('LICENSE');
    await page.getByLabel('commercial monthly price').fill('-5');
    await page.getByRole('button', { name: 'Protect with this box' }).click();
    const priceError = page.locator('fieldset', { hasText: 'commercial license' }).getByRole('alert');
    await priceError.waitFor();
    expect(await priceError.textContent()).toMatch(/>=\s*0|at least 0|too small/i);
    await page.getByLabel('commercial monthly price').fill('400');
    await page.getByRole('button', { name: 'Protect with this box' }).click();
    await page.getByRole('heading', { name: `Box of ${name}` }).waitFor();
    expect(await page.locator('dd', { hasText: 'LICENSE' }).isVisible()).toBe(true);

    // Change it to MONETIZE at 20 %.
    await page.getByLabel('Policy').selectOption('MONETIZE');
    await page.getByLabel(/Royalty rate/).fill('1.5');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const rateError = page.locator('.field', { has: page.getByLabel(/Royalty rate/) }).getByRole('alert');
    await rateError.waitFor();
    await page.getByLabel(/Royalty rate/).fill('0.2');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.locator('dd', { hasText: 'MONETIZE' }).waitFor();
    await screenshot(page, 'creator-box');

    // The claims list pages and shows the claim as protected.
    await page.getByRole('link', { name: 'Claims' }).click();
    const row = page.getByRole('row', { name: new RegExp(name) });
    await row.getByRole('link', { name: 'protected' }).waitFor();
    // Found by a variation's words, any case; a name nobody claimed finds nothing.
    const find = page.getByRole('search', { name: 'Find a claim' });
    await find.getByLabel('Find by name').fill(`countess of LOVELACE ${suffix}`);
    await find.getByRole('button', { name: 'Find' }).click();
    await row.waitFor();
    await find.getByLabel('Find by name').fill('Nobody Claimed This');
    await find.getByRole('button', { name: 'Find' }).click();
    await page.getByText('No claim matches').waitFor();
    await find.getByLabel('Find by name').fill('');
    await find.getByRole('button', { name: 'Find' }).click();
    await row.waitFor();

    // A second claim stays pending: another account opening it gets the not-found page.
    await page.getByRole('link', { name: 'Claim an identity' }).click();
    // The form's own page, before its Name field is filled (the claims list has a search by name).
    await page.getByRole('heading', { name: 'Claim an identity', level: 1 }).waitFor();
    await page.getByLabel('Name').fill(`Private Person ${suffix}`);
    await page.getByLabel(/Reference pictures/).fill('https://images.example.com/private.jpg');
    await page.getByRole('button', { name: 'Claim' }).click();
    await page.getByRole('heading', { name: `Private Person ${suffix}` }).waitFor();
    const privateUrl = page.url();

    const intruder = await newVisitor(browser);
    const other = await intruder.newPage();
    await signUp(other, deployment, {
      email: uniqueEmail('other'),
      name: 'Other Creator',
      role: 'creator',
    });
    await other.goto(privateUrl);
    await other.getByRole('heading', { name: 'Not found' }).waitFor();
    expect(await other.getByText('There is no claim with this id in your account.').isVisible()).toBe(true);
    await screenshot(other, 'security-other-account-not-found');
    // And their own list does not show the first creator's claims.
    await other.getByRole('link', { name: 'Claims' }).click();
    await other.getByText('No claims yet.').waitFor();
    await intruder.close();

    // Removing the box takes the claim back to unprotected.
    await page.goto(claimUrl);
    await page.getByRole('link', { name: 'See its box' }).click();
    // By keyboard: the box page's statistics, charts and scan load after the button and push it
    // down, and a click aimed at where the button was can land on what replaced it (a CI run lost
    // it so). Enter on the focused button does not depend on where the page has moved it.
    await page.getByRole('button', { name: 'Remove the box…' }).press('Enter');
    await page.getByRole('button', { name: 'Yes, remove the box' }).press('Enter');
    await page.getByRole('heading', { name: 'Protect it with a box' }).waitFor();
    await screenshot(page, 'creator-claim');
    await context.close();
  });
});
