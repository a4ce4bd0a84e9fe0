import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { seriousViolations } from './accessibility';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { MailCatcher } from '@svc/mail';
import { childCoverageEnv, stablePort } from '@svc/test-kit';
import { ROOT } from '../helpers';

// The dashboard's browser tests (issue #20): the embedded default as `make dev` starts it, driven
// through Debian's Chromium by playwright-core. Screenshots of each story's last page go to
// test-e2e/output/dashboard/ (gitignored) for people to look at.

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = path.join(ROOT, 'test-e2e/output/dashboard');

export interface Deployment {
  url: string;
  adminToken: string;
  /** The operator's TOTP secret (ADMIN_TOTP_SECRET) the embedded default generated and printed. */
  adminTotpSecret: string;
  sandboxKey: string;
  /** The SMTP catcher the deployment sends account mail to (#30): sign-up links are read from it. */
  mail: MailCatcher;
  stop(): Promise<void>;
}

/** `make dev` on a free port and a fresh data directory, ready when it prints its addresses; `env` adds settings. */
export async function startDeployment(options: { env?: Record<string, string> } = {}): Promise<Deployment> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-dashboard-'));
  // Below the ephemeral range: the deployment listens some seconds after the port is chosen, and
  // an outgoing connection given an ephemeral port in between took it once (EADDRINUSE in CI).
  const port = await stablePort();
  // Its own metrics port too: two deployments (two suites at once) would both take 9464.
  const metricsPort = await stablePort();
  const mail = await new MailCatcher().start();
  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'services/embedded/dist/main.js')], {
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      // Grace-period steps and scans run promptly, as in make dev.
      TIMELINE_INTERVAL_MS: '500',
      SMTP_URL: mail.url,
      // A suite signs up several accounts from 127.0.0.1 within the hour.
      SIGN_UPS_PER_HOUR: '100',
      ...childCoverageEnv(),
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // A shared machine starts seven PGlite databases slowly: up to three minutes.
  const deadline = performance.now() + 180_000;
  while (!/Dashboard:\s+\S+/.test(output)) {
    if (child.exitCode !== null) throw new Error(`embedded exited: ${output}`);
    if (performance.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`embedded not ready: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    adminToken: /Admin token:\s+(\S+)/.exec(output)?.[1] ?? '',
    adminTotpSecret: /Admin TOTP:\s+(\S+)/.exec(output)?.[1] ?? '',
    sandboxKey: /Sandbox key:\s+(\S+)/.exec(output)?.[1] ?? '',
    mail,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      await mail.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Debian's Chromium, headless; `apt-get install -y chromium` when it is missing (.ci/run does). */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

/** A fresh browser profile (its own cookies) at phone or desktop width. */
export async function newVisitor(
  browser: Browser,
  options: { phone?: boolean } = {},
): Promise<BrowserContext> {
  return browser.newContext(
    options.phone === true
      ? { viewport: { width: 390, height: 844 }, isMobile: true }
      : { viewport: { width: 1280, height: 900 } },
  );
}

/**
 * Writes the story's last page to test-e2e/output/dashboard/<name>.png, then holds it to issue
 * #32's bar: no serious or critical accessibility violation (axe-core, WCAG 2.1 AA) on the page as
 * drawn, so every page and state a story shows is checked, details, dialogs and errors included
 * (a page of the test's own, such as the framing test's attacker, is not ours to check).
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
  // The dashboard's pages and the API reference, not a test's own (the framing test's attacker).
  const ours = /^\/(dashboard|docs)(\/|$)/.test(new URL(page.url()).pathname);
  const found = ours ? await seriousViolations(page) : [];
  if (found.length > 0) throw new Error(`${name}: accessibility violations:\n${found.join('\n')}`);
}

/**
 * Waits until a page-side expression is truthy. Playwright's `waitForFunction` runs its predicate
 * through `eval` inside the page, which the dashboard's Content-Security-Policy (`script-src 'self'`)
 * refuses, as it should; `page.evaluate` goes through the DevTools protocol, which CSP does not
 * govern, so this polls with it instead.
 */
export async function waitForPage(page: Page, expression: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await page.evaluate(expression)) return;
    if (Date.now() > deadline) throw new Error(`page never satisfied: ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

let counter = 0;
/** A unique e-mail address for a test account. */
export function uniqueEmail(who: string): string {
  counter += 1;
  return `${who}.${process.pid}.${counter}@example.com`;
}

export const PASSWORD = 'a long enough passphrase';

/** The link of the newest mail to `email` with this subject, once it arrived. */
export async function mailedLink(mail: MailCatcher, email: string, subject: string): Promise<string> {
  const message = await mail.waitFor((m) => m.to.includes(email) && m.subject === subject, 30_000);
  const link = message.links[0];
  if (link === undefined) throw new Error(`no link in "${subject}" to ${email}`);
  return link;
}

/**
 * Signs up through the form, sees "check your inbox", opens the link mailed to the address (#30)
 * and waits for the overview, signed in.
 */
export async function signUp(
  page: Page,
  deployment: Pick<Deployment, 'url' | 'mail'>,
  account: { email: string; name: string; role: 'creator' | 'platform' },
): Promise<void> {
  const { url } = deployment;
  await page.goto(`${url}/dashboard/sign-up`);
  await page.getByLabel(account.role === 'creator' ? /a creator/ : /a platform/).check();
  await page.getByLabel(account.role === 'creator' ? 'Your name' : 'Platform name').fill(account.name);
  await page.getByLabel('E-mail').fill(account.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();
  await page.goto(await mailedLink(deployment.mail, account.email, 'Confirm your e-mail address'));
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Confirm and sign in' }).click();
  await page.getByRole('heading', { name: `Welcome, ${account.name}` }).waitFor();
}
