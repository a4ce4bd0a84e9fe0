import path from 'node:path';
import type { Browser } from 'playwright-core';
import { ROOT } from '../helpers';
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

const PORTRAIT = path.join(ROOT, 'services/gateway/samples/sample-portrait.png');
const AVATAR = path.join(ROOT, 'services/gateway/samples/sample-avatar.png');

describe('dashboard: a creator uploads reference pictures in a real browser', () => {
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

  it('when a creator uploads a picture on the claim form, then the claim shows it, detection fetches it, and a text file is refused with the API’s message', async () => {
    const context = await newVisitor(browser);
    const page = await context.newPage();
    const name = `Grace Upload ${process.pid}${Date.now() % 100000}`;
    await signUp(page, deployment, {
      email: uniqueEmail('grace'),
      name: 'Grace Estate',
      role: 'creator',
    });
    await page.getByRole('link', { name: 'Claims' }).click();
    await page.getByRole('link', { name: 'Claim an identity' }).click();
    // The form's own page, before its Name field is filled (the claims list has a search by name).
    await page.getByRole('heading', { name: 'Claim an identity', level: 1 }).waitFor();
    await page.getByLabel('Name').fill(name);

    // A text file is refused by the gateway; its message shows next to the file input.
    const fileInput = page.getByLabel('Upload a reference picture');
    await fileInput.setInputFiles({
      name: 'notes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('hello'),
    });
    const uploadError = page.locator('.field', { has: fileInput }).getByRole('alert');
    await uploadError.waitFor();
    expect(await uploadError.textContent()).toBe(
      'A text/plain file is not accepted. Upload a PNG, JPEG or WebP picture.',
    );

    // The picture: its URL joins the list of reference pictures, and the claim is created with it.
    await fileInput.setInputFiles(PORTRAIT);
    const urls = page.getByLabel(/Reference pictures/);
    // (This file's TypeScript has no DOM types: the page-side checks are written as strings.)
    await waitForPage(
      page,
      String.raw`/\/dashboard\/uploads\/[\w-]{24}$/.test(document.getElementById('images').value)`,
    );
    const uploadedUrl = await urls.inputValue();
    expect(uploadedUrl).toMatch(new RegExp(`^${deployment.url}/dashboard/uploads/[\\w-]{24}$`));
    await page.getByRole('button', { name: 'Claim' }).click();
    await page.getByRole('heading', { name }).waitFor();
    const claimId = new URL(page.url()).pathname.split('/').pop() ?? '';

    // The claim page shows the picture itself, loaded from its URL.
    const primary = page.getByRole('img', { name: 'Reference picture 1 (primary)' });
    await primary.waitFor();
    expect(await primary.getAttribute('src')).toBe(uploadedUrl);
    await waitForPage(
      page,
      `(() => { const img = document.querySelector('img[alt="Reference picture 1 (primary)"]');` +
        ' return img !== null && img.complete && img.naturalWidth > 0; })()',
    );

    // A second picture uploaded on the claim page is added through the public API.
    await page.getByLabel('Or upload a picture').setInputFiles(AVATAR);
    await page.getByRole('img', { name: 'Reference picture 2' }).waitFor();

    // Verify and box it: detection has fetched the uploaded picture from the gateway, so the same
    // portrait under another name matches this claim.
    await page.getByRole('button', { name: 'Complete verification (sandbox)' }).click();
    await page.getByText('verified', { exact: true }).waitFor();
    await page.getByLabel('Policy').selectOption('MONETIZE');
    await page.getByLabel(/Royalty rate/).fill('0.2');
    await page.getByRole('button', { name: 'Protect with this box' }).click();
    await page.getByRole('heading', { name: `Box of ${name}` }).waitFor();

    const deadline = performance.now() + 30_000;
    let answer: { isBoxed?: boolean; matchedIdentity?: { claimId?: string } } = {};
    while (performance.now() < deadline) {
      const res = await fetch(`${deployment.url}/v1/svc/identity/check`, {
        method: 'POST',
        headers: { authorization: `Bearer ${deployment.sandboxKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'Someone Else Entirely',
          imageUrl: `${deployment.url}/samples/sample-portrait.png`,
        }),
      });
      answer = (await res.json()) as typeof answer;
      if (answer.isBoxed === true) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(answer).toMatchObject({ isBoxed: true, matchedIdentity: { claimId } });

    await page.goto(`${deployment.url}/dashboard/claims/${claimId}`);
    await primary.waitFor();
    // Neither sample picture shows a face (coloured discs): each says so once detection has
    // examined it, and the page asks for a picture that shows the creator's face (docs/spec/contracts.md §15).
    await page.getByText('No face found').nth(1).waitFor({ timeout: 60_000 });
    await page.getByRole('status').filter({ hasText: 'No face could be enrolled yet' }).waitFor();
    await screenshot(page, 'creator-upload');
    await context.close();
  });
});
