import type { Browser } from 'playwright-core';
import {
  launchBrowser,
  newVisitor,
  PASSWORD,
  screenshot,
  signUp,
  startDeployment,
  uniqueEmail,
  type Deployment,
} from './browser';
import { totpCodeAt } from './otp';

jest.setTimeout(240_000);

// The account page (#30): two-step sign-in set up in the browser, its recovery codes shown once,
// then asked for at sign-in; and sign out everywhere.
describe('dashboard: account security in a real browser', () => {
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

  it('when a creator turns on two-step sign-in, then the next sign-in asks for the code and a recovery code works once', async () => {
    const context = await newVisitor(browser);
    const page = await context.newPage();
    const email = uniqueEmail('two-step');
    await signUp(page, deployment, { email, name: 'Grace Hopper', role: 'creator' });

    await page.getByRole('link', { name: 'Account security' }).click();
    await page.getByRole('heading', { name: 'Account security' }).waitFor();
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const secret = (await page.getByLabel('TOTP secret').textContent())?.trim() ?? '';
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await page.getByLabel('Code from the app').fill('000000');
    await page.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
    await page.getByText('not the current code of the secret shown').waitFor();
    await page.getByLabel('Code from the app').fill(totpCodeAt(secret));
    await page.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
    // allTextContents does not wait: the codes appear once the server has answered (a CI
    // rehearsal read the list before it was rendered and found it empty).
    const recoveryCodes = page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    await recoveryCodes.nth(9).waitFor();
    const codes = await recoveryCodes.allTextContents();
    expect(codes).toHaveLength(10);
    await screenshot(page, 'account-security-recovery-codes');
    await page.getByRole('button', { name: 'I have stored them' }).click();
    await page.getByText(/On: sign-in asks for the code/).waitFor();

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The password was right: the form now asks for the code.
    await page.getByLabel('Authenticator code').waitFor();
    await page.getByLabel('Authenticator code').fill(codes[0] ?? '');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Welcome, Grace Hopper' }).waitFor();

    // Sign out everywhere ends this session too; the used recovery code does not sign in again.
    await page.getByRole('link', { name: 'Account security' }).click();
    await page.getByText('9 recovery codes left.', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Authenticator code').fill(codes[0] ?? '');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('wrong or already used code').waitFor();
    await context.close();
  });
});
