// `make bench-dashboard` (issue #32): the dashboard's initial bundle (goal <= 250 KB compressed,
// code split by route) and Lighthouse's accessibility (goal >= 95) and performance (goal >= 90)
// scores of its main pages, signed in as a creator and as a platform, against Debian's Chromium.
// The same-run baseline is the page that draws nothing of ours but a heading: the sign-in page's
// performance is what the machine allows today (these machines' speed varies two- to three-fold).
//
// BENCH_FORM_FACTOR=mobile|desktop (default both), CHROMIUM_PATH (default /usr/bin/chromium).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const { MailCatcher } = require(path.join(ROOT, 'packages/mail/dist/index.js'));
const { default: lighthouse } = await import('lighthouse');
const chromeLauncher = await import('chrome-launcher');

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const DIST = path.join(ROOT, 'services/dashboard/dist');
const BUNDLE_GOAL_KB = 250;
const ACCESSIBILITY_GOAL = 95;
const PERFORMANCE_GOAL = 90;
const FORM_FACTORS = process.env.BENCH_FORM_FACTOR ? [process.env.BENCH_FORM_FACTOR] : ['mobile', 'desktop'];
const PASSWORD = 'a long enough passphrase for the bench';

const verdict = (ok) => (ok ? 'PASS' : 'MISS');

/** What index.html makes the browser fetch before the first page draws: its scripts, styles and preloads. */
function initialBundle() {
  const html = readFileSync(path.join(DIST, 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="\/dashboard\/(assets\/[^"]+\.(?:js|css))"/g)].map(
    (m) => m[1],
  );
  const size = (file, suffix) =>
    existsSync(path.join(DIST, file + suffix)) ? statSync(path.join(DIST, file + suffix)).size : 0;
  const sum = (suffix) => files.reduce((total, file) => total + size(file, suffix), 0);
  return { files, raw: sum(''), gzip: sum('.gz'), brotli: sum('.br') };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function startEmbedded(mail) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-dashboard-'));
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(ROOT, 'services/embedded/dist/main.js')], {
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      METRICS_PORT: String(await freePort()),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      SMTP_URL: mail.url,
      SIGN_UPS_PER_HOUR: '100',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + 180_000;
  while (!/Dashboard:\s+\S+/.test(output)) {
    if (child.exitCode !== null) throw new Error(`embedded exited: ${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`embedded not ready: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Signs an account up through the API and its mailed link; the session cookie. */
async function signedIn(base, mail, role) {
  const email = `bench.${role}.${process.pid}@example.com`;
  const headers = { 'content-type': 'application/json', origin: base };
  const signUp = await fetch(`${base}/dashboard/api/accounts`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email, password: PASSWORD, name: `Bench ${role}`, role }),
  });
  if (signUp.status !== 202) throw new Error(`sign-up answered ${signUp.status}: ${await signUp.text()}`);
  const message = await mail.waitFor((m) => m.to.includes(email), 30_000);
  const token = new URL(message.links[0]).hash.replace(/^#token=/, '');
  const verified = await fetch(`${base}/dashboard/api/email-verifications`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ token: decodeURIComponent(token), password: PASSWORD }),
  });
  if (!verified.ok) throw new Error(`verification answered ${verified.status}: ${await verified.text()}`);
  const cookie = verified.headers.getSetCookie().find((c) => c.startsWith('svc_session='));
  if (cookie === undefined) throw new Error('no session cookie');
  return cookie.split(';')[0];
}

async function audit(chrome, url, cookie, formFactor) {
  const flags = {
    port: chrome.port,
    output: 'json',
    logLevel: 'error',
    onlyCategories: ['performance', 'accessibility'],
    ...(cookie === undefined ? {} : { extraHeaders: { Cookie: cookie } }),
  };
  const config =
    formFactor === 'desktop' ? (await import('lighthouse/core/config/desktop-config.js')).default : undefined;
  // One retry: a run that could not measure (no first paint in time, a lost tab) scores null.
  for (let attempt = 1; ; attempt += 1) {
    const { lhr } = await lighthouse(url, flags, config);
    const { performance, accessibility } = lhr.categories;
    if ((performance.score === null || accessibility.score === null) && attempt < 2) continue;
    const metric = (id) => lhr.audits[id]?.displayValue ?? '?';
    return {
      performance: Math.round((performance.score ?? 0) * 100),
      accessibility: Math.round((accessibility.score ?? 0) * 100),
      detail:
        lhr.runtimeError?.code ??
        `LCP ${metric('largest-contentful-paint')}, TBT ${metric('total-blocking-time')}, CLS ${metric('cumulative-layout-shift')}`,
    };
  }
}

const bundle = initialBundle();
console.log('Dashboard: initial bundle (what index.html loads before the first page draws)');
console.log(`  files: ${bundle.files.join(', ')}`);
console.log(
  `  raw ${(bundle.raw / 1024).toFixed(1)} KB, gzip ${(bundle.gzip / 1024).toFixed(1)} KB, brotli ${(bundle.brotli / 1024).toFixed(1)} KB; goal <= ${BUNDLE_GOAL_KB} KB compressed (gzip): ${verdict(bundle.gzip / 1024 <= BUNDLE_GOAL_KB)}`,
);
const scripts = readdirSync(path.join(DIST, 'assets')).filter((f) => f.endsWith('.js')).length;
console.log(
  `  code split by route: ${scripts} scripts in assets/, ${bundle.files.length} of them loaded first`,
);

const mail = await new MailCatcher().start();
const deployment = await startEmbedded(mail);
const chrome = await chromeLauncher.launch({
  chromePath: CHROMIUM,
  chromeFlags: [
    '--headless=new',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--no-first-run',
  ],
});
let misses = 0;
try {
  const creator = await signedIn(deployment.url, mail, 'creator');
  const platform = await signedIn(deployment.url, mail, 'platform');
  const pages = [
    { name: 'sign-in (baseline)', path: '/dashboard/sign-in' },
    { name: 'creator: overview', path: '/dashboard/', cookie: creator },
    { name: 'creator: claims', path: '/dashboard/claims', cookie: creator },
    { name: 'creator: new claim', path: '/dashboard/claims/new', cookie: creator },
    { name: 'creator: boxes', path: '/dashboard/boxes', cookie: creator },
    { name: 'creator: royalties', path: '/dashboard/earnings', cookie: creator },
    { name: 'platform: API keys', path: '/dashboard/keys', cookie: platform },
    { name: 'platform: licenses', path: '/dashboard/licenses', cookie: platform },
    { name: 'platform: webhooks', path: '/dashboard/webhooks', cookie: platform },
    { name: 'platform: usage', path: '/dashboard/usage', cookie: platform },
    { name: 'platform: violations', path: '/dashboard/violations', cookie: platform },
    { name: 'platform: what you owe', path: '/dashboard/billing', cookie: platform },
    { name: 'platform: members', path: '/dashboard/members', cookie: platform },
  ];
  for (const formFactor of FORM_FACTORS) {
    console.log(
      `\nLighthouse ${formFactor} (accessibility goal >= ${ACCESSIBILITY_GOAL}, performance goal >= ${PERFORMANCE_GOAL})`,
    );
    let baseline;
    for (const page of pages) {
      const scores = await audit(chrome, `${deployment.url}${page.path}`, page.cookie, formFactor);
      baseline ??= scores.performance;
      const ok = scores.accessibility >= ACCESSIBILITY_GOAL && scores.performance >= PERFORMANCE_GOAL;
      if (!ok) misses += 1;
      console.log(
        `  ${page.name.padEnd(24)} accessibility ${String(scores.accessibility).padStart(3)}  performance ${String(scores.performance).padStart(3)} (baseline ${baseline}, ratio ${(scores.performance / Math.max(1, baseline)).toFixed(2)})  ${verdict(ok)}  ${scores.detail}`,
      );
    }
  }
} finally {
  await chrome.kill();
  await deployment.stop();
  await mail.stop();
}
console.log(misses === 0 ? '\nevery page PASS' : `\n${misses} page run(s) MISS`);
