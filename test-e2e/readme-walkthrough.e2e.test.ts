import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stablePort, waitFor } from '@svc/test-kit';
import { ROOT, sdkFor, startEmbedded, stopEmbedded, type Embedded } from './helpers';

// The README's walk-through, as written: its shell blocks run in bash against a fresh embedded
// default (`make dev`), from a directory whose `.data/` is the embedded default's, and every answer
// is checked. `curl` is wrapped only to record each answer (status and body) as well as print it.

/** The ```sh blocks of README.md's "Walk-through" section, in order. */
export function walkthroughScript(readme: string): string {
  const start = readme.indexOf('## Walk-through');
  if (start < 0) throw new Error('README.md has no Walk-through section');
  const next = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, next < 0 ? undefined : next);
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  if (blocks.length === 0) throw new Error('the Walk-through section has no sh block');
  return blocks.join('\n');
}

const PRELUDE = `set -euo pipefail
curl() {
  local out status body
  out=$(command curl "$@" -w '\\n%{http_code}')
  status=\${out##*$'\\n'}
  body=\${out%$'\\n'*}
  jq -nc --arg status "$status" --arg args "$*" --arg body "$body" \\
    '{status: ($status | tonumber), args: $args, body: $body}' >> "$WALK_LOG"
  printf '%s\\n' "$body"
}
`;

interface Answer {
  status: number;
  args: string;
  body: string;
}

let embedded: Embedded | undefined;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'svc-walkthrough-'));
  const port = await stablePort();
  // The walk-through reads .data/bootstrap-key and .data/admin-token, as a reader's checkout has them.
  embedded = await startEmbedded(path.join(dir, '.data'), port, 240_000);
}, 300_000);

afterAll(async () => {
  if (embedded !== undefined) expect(await stopEmbedded(embedded)).toBe(0);
  rmSync(dir, { recursive: true, force: true });
});

describe("the README's walk-through", () => {
  it('when its shell blocks run as written against a fresh make dev, then every answer is the one it describes', async () => {
    const running = embedded as Embedded;
    const script = walkthroughScript(readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
    const log = path.join(dir, 'answers.jsonl');
    writeFileSync(log, '');
    writeFileSync(path.join(dir, 'walkthrough.sh'), PRELUDE + script);
    const run = spawnSync('bash', ['walkthrough.sh'], {
      cwd: dir,
      env: { PATH: process.env.PATH, PORT: new URL(running.url).port, WALK_LOG: log },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });

    const answers: Answer[] = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Answer);
    const used = new Set<Answer>();
    /** The next unread answer of a command matching `pattern`, its status checked, its body parsed. */
    const answer = (pattern: RegExp, status: number): any => {
      const found = answers.find((a) => !used.has(a) && pattern.test(a.args));
      if (found === undefined) throw new Error(`no command matches ${pattern}`);
      used.add(found);
      expect({ command: pattern.source, status: found.status }).toEqual({ command: pattern.source, status });
      return JSON.parse(found.body);
    };

    const platform = answer(/POST \S+\/admin\/platforms -H/, 201);
    expect(platform.data).toMatchObject({ name: 'Avatarly', plan: 'basic', domain: 'avatarly.io' });
    const key2 = answer(/\/admin\/platforms\/plat_\w+\/keys/, 201).data.key as string;
    expect(key2).toMatch(/^svc_test_/);

    const headers = answers.find((a) => a.args.startsWith('-si '));
    used.add(headers as Answer);
    expect(headers?.status).toBe(200);
    expect(headers?.body).toMatch(/^X-Request-Id: \S+\r?$/m);
    expect(headers?.body).toMatch(/^X-RateLimit-Limit: 60\r?$/m);
    expect(headers?.body).toMatch(/^X-RateLimit-Remaining: \d+\r?$/m);
    expect(headers?.body).toMatch(/^X-RateLimit-Reset: \d+\r?$/m);

    const claim = answer(/POST \S+\/v1\/svc\/claims -H/, 201).data;
    expect(claim).toMatchObject({ name: 'Ada Lovelace', status: 'pending', verificationTier: 'BRONZE' });
    expect(claim.nextStep.url).toContain(claim.id);
    expect(claim.referenceImages[0].url).toBe(`${running.url}/samples/sample-portrait.png`);
    expect(answer(/test-helpers\/claims\/claim_\w+\/verify/, 200).data).toMatchObject({
      status: 'verified',
      verificationTier: 'SILVER',
    });
    expect(answer(/\/admin\/claims\/claim_\w+\/verify/, 200).data.verificationTier).toBe('GOLD');

    const box = answer(/POST \S+\/v1\/svc\/boxes -H/, 201).data;
    expect(box).toMatchObject({ claimId: claim.id, policy: 'MONETIZE', policyConfig: { royaltyRate: 0.15 } });
    expect(answer(/boxes\?policy=MONETIZE/, 200).data).toEqual([
      expect.objectContaining({ id: box.id, royaltyRate: 0.15 }),
    ]);
    expect(answer(/boxes\/box_\w+\/stats/, 200).data.boxId).toBe(box.id);

    // The checks: a misspelled, re-spaced name matches the box; an unrelated name does not.
    const check = answer(/POST \S+\/v1\/svc\/identity\/check -H/, 200);
    expect(check).toMatchObject({ isBoxed: true, isClaimed: true, action: 'TRACK_REVENUE' });
    expect(check.matchedIdentity).toMatchObject({ claimId: claim.id, boxId: box.id });
    const batch = answer(/identity\/check\/batch/, 200);
    expect(batch.results.map((r: { id: string; isBoxed: boolean }) => [r.id, r.isBoxed])).toEqual([
      ['a1', true],
      ['a2', false],
    ]);
    expect(answer(/POST http:\/\/[^/]+\/identity\/check -H/, 200)).toMatchObject({
      status: 'BOXED',
      identity_id: claim.id,
      restrictions: { policy: 'MONETIZE', action: 'TRACK_REVENUE' },
    });
    expect(answer(/\/identity\/status\/claim_/, 200)).toMatchObject({ status: 'BOXED', box_id: box.id });

    // The avatar breaks the box's policy: a violation, appealed, its grace period paused.
    const avatar = answer(/POST \S+\/v1\/svc\/avatars/, 201).data;
    expect(avatar.match).toMatchObject({ boxId: box.id, outcome: 'violation' });
    const violations = answer(/violations\?status=pending/, 200).data;
    expect(violations).toHaveLength(1);
    expect(answer(/violations\/viol_\w+\/appeal/, 200).data.status).toBe('appealed');
    expect(answer(/advance-time/, 200).data.advancedBySeconds).toBe(3600);
    const obligations = answer(/enforcement\/obligations/, 200);
    expect(obligations.grace_periods).toEqual([
      expect.objectContaining({ violation_id: violations[0].id, status: 'paused' }),
    ]);

    // Licensed at once (MONETIZE), which resolves the violation.
    const request = answer(/licenses\/request -H/, 201).data;
    expect(request).toMatchObject({ boxId: box.id, status: 'approved', tier: 'creator' });
    expect(answer(/boxes\/box_\w+\/license-requests/, 200).data[0].id).toBe(request.id);
    const license = answer(/licenses\/request\/req_/, 200).data.license;
    expect(license.id).toMatch(/^lic_/);
    expect(answer(/licensing\/terms\/claim_/, 200)).toMatchObject({ auto_approve: true });
    expect(answer(/-s \S+\/v1\/svc\/violations\/viol_\w+ -H/, 200).data).toMatchObject({
      id: violations[0].id,
      status: 'resolved',
    });

    // Usage of the license's own month (the sandbox clock's, which may be ahead of the machine's),
    // its correction in the second family, and both sides of the balance: exact to the cent.
    const licensed = answer(/-s \S+\/v1\/svc\/licenses\/lic_\w+ -H/, 200).data;
    expect(licensed.id).toBe(license.id);
    const usage = answer(/licenses\/lic_\w+\/usage/, 201).data;
    expect(usage.period).toBe(licensed.validFrom.slice(0, 7));
    expect(usage).toMatchObject({ licenseId: license.id, version: 1, totalRevenue: 33.33, royaltyDue: 5 });
    expect(answer(/revenue\/report/, 200)).toMatchObject({
      license_id: license.id,
      version: 2,
      total_revenue: 1000.04,
      royalty_due: 150.01,
    });
    expect(answer(/revenue\/balance/, 200)).toMatchObject({ balance: 150.01, receivable: 0 });
    expect(answer(/revenue\/balance/, 200)).toMatchObject({ balance: 0, receivable: 150.01 });

    // The portrait under another name: a match once detection has fingerprinted the reference
    // picture. The walk-through says "by now"; on a slow machine the test gives it a little longer.
    const byPicture = answer(/"name":"Jane Doe"/, 200);
    if (byPicture.isBoxed !== true) {
      await waitFor(
        async () => {
          const again = await sdkFor(running.url, key2).POST('/v1/svc/identity/check', {
            body: { name: 'Jane Doe', imageUrl: `${running.url}/samples/sample-portrait.png` },
          });
          return again.data?.isBoxed === true ? again : undefined;
        },
        { what: 'a match by picture', timeoutMs: 20_000 },
      );
    } else {
      expect(byPicture.matchedIdentity).toMatchObject({ claimId: claim.id });
      expect(byPicture.detection.classification).toBe('IMAGE_MATCH');
    }

    const rotated = answer(/admin\/keys\/key_\w+\/rotate/, 200).data;
    expect(rotated.previousKeyId).toMatch(/^key_/);
    const endpoint = answer(/POST \S+\/v1\/svc\/webhooks -H/, 201).data;
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect(answer(/webhooks\/test/, 202).data).toMatchObject({
      endpointId: endpoint.id,
      eventType: 'grace_period.started',
      test: true,
    });

    // Nothing the walk-through sent went unchecked, and nothing failed.
    expect(answers.filter((a) => !used.has(a)).map((a) => a.args)).toEqual([]);
  }, 180_000);
});
