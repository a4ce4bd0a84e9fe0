import { readFileSync } from 'node:fs';
import type { Browser, Locator, Page } from 'playwright-core';
import { checkLicenseCredential, createKeyCache } from '@svc/sdk';
import { waitFor } from '@svc/test-kit';
import { call } from '../helpers';
import {
  launchBrowser,
  newVisitor,
  screenshot,
  signUp,
  startDeployment,
  uniqueEmail,
  type Deployment,
} from './browser';

// Issue #31 in a real browser (docs/spec/contracts.md §16, "proof anyone can check"): a creator verifies the
// credential of a license on their box, a platform downloads the credential of its license and
// verifies it and the logged decision, each check run by the SDK in Chromium (Ed25519 through
// WebCrypto) against the keys the deployment publishes; an altered proof shows why it fails.

jest.setTimeout(300_000);

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

/** The outcome badge and label of each listed check, e.g. "passed Signature". */
async function checksOf(panel: Locator): Promise<string[]> {
  const items = panel.getByRole('list', { name: 'What was checked' }).getByRole('listitem');
  const out: string[] = [];
  for (const item of await items.all()) {
    const badge = (await item.locator('.badge').textContent()) ?? '';
    const label = (await item.locator('strong').textContent()) ?? '';
    out.push(`${badge} ${label}`);
  }
  return out;
}

/** A compact JWS with one character of its signature changed (its length and encoding kept). */
function withAlteredSignature(jws: string): string {
  const [header, payload, signature = ''] = jws.split('.');
  const i = 20;
  const swapped = signature[i] === 'A' ? 'B' : 'A';
  return `${header}.${payload}.${signature.slice(0, i)}${swapped}${signature.slice(i + 1)}`;
}

const CREDENTIAL_CHECKS = [
  'Well-formed',
  'Type',
  'Signing key published',
  'Signature',
  'Issuer',
  'Valid now',
  'Not revoked (status list)',
  'Covers this license',
];

const LOG_CHECKS = ['Entry read', 'Leaf hash', 'Signed tree head', 'Included in the log'];

describe('dashboard: proofs anyone can check, verified in the browser', () => {
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

  it('when a creator approves a platform’s license, then the creator verifies its credential and the box’s log entry check by check in the browser and an altered credential shows its bad signature, and the platform downloads the credential as <licenseId>.jwt, which verifies, and verifies the logged activation, whose altered entry shows its hash mismatch', async () => {
    const suffix = `${process.pid}${Date.now() % 100000}`;
    const name = `Ada Lovelace ${suffix}`;

    // The platform: a dashboard account and the API key its integration uses.
    const platformContext = await newVisitor(browser);
    const platformPage = await platformContext.newPage();
    await signUp(platformPage, deployment, {
      email: uniqueEmail('avatars'),
      name: 'Avatar Works',
      role: 'platform',
    });
    await platformPage.getByRole('link', { name: 'API keys', exact: true }).click();
    await platformPage.getByRole('button', { name: 'Create a key' }).click();
    const key = (await platformPage.getByLabel('Secret', { exact: true }).textContent()) ?? '';
    await platformPage.getByRole('button', { name: 'I have stored it' }).click();

    // The creator boxes the identity; the platform asks for a license; the creator approves it.
    const creatorContext = await newVisitor(browser);
    const page = await creatorContext.newPage();
    await signUp(page, deployment, { email: uniqueEmail('ada'), name: 'Lovelace Estate', role: 'creator' });
    const boxId = await boxedInDashboard(page, name);
    const requestId = await waitFor(
      async () => {
        const res = await call(deployment.url, key, 'POST', '/v1/svc/licenses/request', {
          boxId,
          tier: 'creator',
          useCase: 'Fan chat avatar',
          acceptGuidelines: true,
        });
        return res.status === 201 ? (res.body.data.id as string) : undefined;
      },
      { what: 'a license request', timeoutMs: 30_000, intervalMs: 500 },
    );
    const card = page.getByRole('listitem').filter({ hasText: 'Avatar Works' });
    for (let attempt = 0; attempt < 30 && !(await card.isVisible()); attempt += 1) {
      await page.getByRole('button', { name: 'Refresh requests' }).click();
      await page.waitForTimeout(1000);
    }
    await card.getByRole('button', { name: /^Approve/ }).click();
    await card.waitFor({ state: 'detached' });
    const approved = await call(deployment.url, key, 'GET', `/v1/svc/licenses/request/${requestId}`);
    const licenseId = approved.body.data.license.id as string;
    expect(licenseId).toMatch(/^lic_/);
    const jwks = (await (await fetch(`${deployment.url}/.well-known/jwks.json`)).json()) as {
      keys: { kid: string }[];
    };
    const kid = jwks.keys[0]?.kid ?? '';
    expect(kid).not.toBe('');

    // The creator verifies the credential from the license's row: every check passes, in the browser.
    const granted = page.getByRole('region', { name: 'Licenses granted' });
    const row = granted.getByRole('row', { name: new RegExp(licenseId) });
    await row.waitFor();
    const requests: string[] = [];
    page.on('request', (request) => requests.push(new URL(request.url()).pathname));
    await row.getByRole('button', { name: 'Verify credential of Avatar Works’s creator license' }).click();
    const panel = page.getByRole('region', {
      name: `Verification of the credential of license ${licenseId} (Avatar Works`,
    });
    await panel.getByText('Verified: every check passed.').waitFor({ timeout: 30_000 });
    expect(await checksOf(panel)).toEqual(CREDENTIAL_CHECKS.map((check) => `passed ${check}`));
    // What it checked, in words: the published key, the issuer, the status bit, the claims.
    await panel
      .getByText(
        new RegExp(`^Key ${kid} is (the key|one of the \\d+ keys) published at /.well-known/jwks.json$`),
      )
      .waitFor();
    await panel.getByText(`The Ed25519 signature verifies with key ${kid}`).waitFor();
    await panel.getByText(`Issued by ${deployment.url}; this deployment is ${deployment.url}`).waitFor();
    await panel.getByText(/ is 0: active, not revoked$/).waitFor();
    const facts = panel.getByRole('definition');
    await facts.filter({ hasText: new RegExp(`^${licenseId}$`) }).waitFor();
    await facts.filter({ hasText: new RegExp(`^${name}$`) }).waitFor();
    await facts.filter({ hasText: /^creator$/ }).waitFor();
    // The key set and the status list were fetched by the browser, beside the credential.
    expect(requests).toEqual(
      expect.arrayContaining([
        `/v1/svc/licenses/${licenseId}/credential`,
        '/.well-known/jwks.json',
        expect.stringMatching(/^\/v1\/svc\/status-lists\//),
      ]),
    );
    await screenshot(page, 'proofs-creator-credential-verified');

    // An altered credential (one character of its signature): the signature check fails, and says so.
    await page.route('**/v1/svc/licenses/*/credential', async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { data: { credential: string; expiresAt: string } };
      body.data.credential = withAlteredSignature(body.data.credential);
      await route.fulfill({ response, json: body });
    });
    await panel.getByRole('button', { name: 'Check again' }).click();
    await panel.getByText(/^Not verified \(bad_signature\): its signature does not verify/).waitFor();
    expect(await checksOf(panel)).toEqual([
      'passed Well-formed',
      'passed Type',
      'passed Signing key published',
      'failed Signature',
      ...CREDENTIAL_CHECKS.slice(4).map((check) => `not checked ${check}`),
    ]);
    await panel.getByText(`the signature does not verify with key ${kid}`).waitFor();
    await screenshot(page, 'proofs-creator-credential-altered');
    await page.unroute('**/v1/svc/licenses/*/credential');

    // The box's creation is a logged decision: once appended, the box carries its entry, which the
    // creator (its party) reads and proves included in the signed log.
    const boxProof = page.getByRole('button', { name: `Verify log entry of the box of ${name}` });
    for (let attempt = 0; attempt < 30 && !(await boxProof.isVisible()); attempt += 1) {
      await page.waitForTimeout(1000);
      await page.reload();
      await page.getByRole('heading', { name: `Box of ${name}` }).waitFor();
    }
    await boxProof.click();
    const boxPanel = page.getByRole('region', {
      name: `Verification of the log entry of the box of ${name}`,
    });
    await boxPanel.getByText('Verified: every check passed.').waitFor({ timeout: 30_000 });
    expect(await checksOf(boxPanel)).toEqual(LOG_CHECKS.map((check) => `passed ${check}`));
    await boxPanel
      .getByRole('definition')
      .filter({ hasText: /^box\.created$/ })
      .waitFor();
    await boxPanel
      .getByRole('definition')
      .filter({ hasText: new RegExp(`boxId: ${boxId}`) })
      .waitFor();
    await screenshot(page, 'proofs-creator-box-log-entry');

    // The license's activation is logged too: the box owner's list of granted licenses carries its
    // entry, which the creator proves the same way.
    const licenseProof = page.getByRole('button', {
      name: 'Verify log entry of Avatar Works’s creator license',
    });
    for (let attempt = 0; attempt < 30 && !(await licenseProof.isVisible()); attempt += 1) {
      await page.waitForTimeout(1000);
      await page.reload();
      await page.getByRole('heading', { name: `Box of ${name}` }).waitFor();
    }
    await licenseProof.click();
    const licensePanel = page.getByRole('region', {
      name: /^Verification of the log entry of license lic_/,
    });
    await licensePanel.getByText('Verified: every check passed.').waitFor({ timeout: 30_000 });
    expect(await checksOf(licensePanel)).toEqual(LOG_CHECKS.map((check) => `passed ${check}`));
    await licensePanel
      .getByRole('definition')
      .filter({ hasText: /^license\.activated$/ })
      .waitFor();
    await screenshot(page, 'proofs-creator-license-log-entry');
    await creatorContext.close();

    // The platform downloads its license's credential: <licenseId>.jwt, the compact JWS itself.
    await platformPage.getByRole('link', { name: 'Licenses', exact: true }).click();
    const licenseRow = platformPage.getByRole('row', { name: new RegExp(name) });
    await licenseRow.waitFor();
    const [download] = await Promise.all([
      platformPage.waitForEvent('download'),
      licenseRow
        .getByRole('button', { name: `Download credential of the creator license of ${name}` })
        .click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${licenseId}.jwt`);
    const saved = readFileSync(await download.path(), 'utf8');
    expect(saved).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    await platformPage
      .getByRole('status')
      .filter({ hasText: `Saved ${licenseId}.jwt` })
      .waitFor();
    // The file verifies on its own, as any third party would check it (the SDK, the published keys).
    const checked = await checkLicenseCredential(saved, createKeyCache(deployment.url));
    expect(checked.license).toMatchObject({ id: licenseId, identityName: name, tier: 'creator', boxId });
    expect(checked.keyId).toBe(kid);

    // And in the browser, from the license's row.
    await licenseRow
      .getByRole('button', { name: `Verify credential of the creator license of ${name}` })
      .click();
    const platformPanel = platformPage.getByRole('region', {
      name: `Verification of the credential of license ${licenseId} (${name})`,
    });
    await platformPanel.getByText('Verified: every check passed.').waitFor({ timeout: 30_000 });
    expect(await checksOf(platformPanel)).toEqual(CREDENTIAL_CHECKS.map((check) => `passed ${check}`));
    await screenshot(platformPage, 'proofs-platform-credential');

    // The license's newest logged decision (its activation): read by its party, hashed here, and
    // proven included in the tree head the log signed.
    const logProof = licenseRow.getByRole('button', {
      name: `Verify log entry of the creator license of ${name}`,
    });
    for (let attempt = 0; attempt < 30 && !(await logProof.isVisible()); attempt += 1) {
      await platformPage.waitForTimeout(1000);
      await platformPage.reload();
      await licenseRow.waitFor();
    }
    await logProof.click();
    const logPanel = platformPage.getByRole('region', {
      name: `Verification of the log entry of license ${licenseId}`,
    });
    await logPanel.getByText('Verified: every check passed.').waitFor({ timeout: 30_000 });
    expect(await checksOf(logPanel)).toEqual(LOG_CHECKS.map((check) => `passed ${check}`));
    await logPanel
      .getByRole('definition')
      .filter({ hasText: /^license\.activated$/ })
      .waitFor();
    await logPanel
      .getByRole('definition')
      .filter({ hasText: new RegExp(`licenseId: ${licenseId}`) })
      .waitFor();
    await logPanel
      .getByText(/^The audit path of \d+ hash(es lead| leads) from leaf #\d+ to the signed root of size \d+$/)
      .waitFor();

    // An entry altered on its way (its decision rewritten): its hash no longer matches the license's.
    await platformPage.route('**/v1/svc/transparency/entries/*', async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { data: { entry: string } };
      body.data.entry = body.data.entry.replace('"license.activated"', '"license.revoked"');
      await route.fulfill({ response, json: body });
    });
    await logPanel.getByRole('button', { name: 'Check again' }).click();
    await logPanel
      .getByText(/^Not verified \(leaf_hash_mismatch\): the entry’s text does not hash to the leaf hash/)
      .waitFor();
    expect(await checksOf(logPanel)).toEqual([
      'passed Entry read',
      'failed Leaf hash',
      'not checked Signed tree head',
      'not checked Included in the log',
    ]);
    // What it shows is what was hashed: the rewritten decision, marked as not verified.
    await logPanel.getByRole('heading', { name: 'The decision as read (not verified)' }).waitFor();
    await logPanel
      .getByRole('definition')
      .filter({ hasText: /^license\.revoked$/ })
      .waitFor();
    await screenshot(platformPage, 'proofs-platform-log-entry-altered');
    await platformContext.close();
  });
});
