import { createDatabase, type Database } from '@svc/storage';
import { internalClient, platformClaims } from '@svc/test-kit';
import type { RunningEnforcement } from '../../src';
import { AvatarRepository } from '../../src/data-access/avatar.repository';
import {
  JWT_SECRET,
  startEnforcementHarness,
  startReplica,
  type EnforcementHarness,
} from '../fixtures/enforcement-harness';

// The evaluation retry job on two replicas (issue #34, "Singletons that are not"): avatars whose
// evaluation is pending (detection was down) are leased in their rows (evaluation_lease_until, 15 s
// of the service's clock; the due rows taken FOR UPDATE SKIP LOCKED) and held across the call to
// detection, outside any transaction. A replica that dies leaves its leases to run out; one that
// stalls past them (paused, or cut off and back) comes back with an answer older than the one the
// other replica applied since: each answer is applied with the avatar's row locked and only when it
// was asked after the newest one applied, so a late one opens and closes nothing (the avatar is
// asked about once more, as after any overtaken answer).

let h: EnforcementHarness;
let replica: RunningEnforcement;
/** A third replica the avatars are reported to: its breaker opens on detection's 503s, not theirs. */
let reporter: RunningEnforcement;
let db: Database;

beforeAll(async () => {
  h = await startEnforcementHarness();
  replica = await startReplica(h);
  reporter = await startReplica(h);
  db = await createDatabase({ url: h.databaseUrl });
});
afterAll(async () => {
  await db.close();
  await reporter.stop();
  await replica.stop();
  await h.stop();
});

const LEASE_MS = 15_000;
let boxes = 0;

/**
 * `count` avatars impersonating a new box, reported (to the third replica) while detection was
 * down: pending, due in 1 s. Each report kicks that replica's job, which finds none of them due
 * (each request holds its new avatar's evaluation lease until it has asked detection); each pass
 * is waited for, so that none is still running when a test's own passes start.
 */
async function pendingImpostors(count: number): Promise<{ refs: string[]; name: string }> {
  boxes += 1;
  const name = `Pending Person ${boxes}`;
  await h.box(name, 'BLOCK_ALL');
  const client = internalClient(reporter.url, JWT_SECRET, platformClaims());
  h.detection.down = true;
  for (let i = 0; i < count; i += 1) {
    const reported = await h.avatar(client, `pending-${i}`, `${name} bot ${i}`);
    expect(reported.evaluation).toBe('pending');
    await reporter.evaluationJobPass();
  }
  h.detection.down = false;
  h.clock.advance(1000);
  const { rows } = await db.query<{ ref: string }>(
    'SELECT ref FROM avatars WHERE platform_id = $1 ORDER BY ref',
    [client.platformId],
  );
  return { refs: rows.map((row) => row.ref), name };
}

/** The avatars (by their internal refs, in order) with their evaluation and violations. */
async function stateOf(ids: string[]) {
  const { rows } = await db.query<{ ref: string; evaluation: string; violations: number; open: number }>(
    `SELECT a.ref, a.evaluation,
            (SELECT count(*)::int FROM violations v WHERE v.avatar_ref = a.ref) AS violations,
            (SELECT count(*)::int FROM violations v WHERE v.avatar_ref = a.ref AND v.status = 'pending') AS open
       FROM avatars a WHERE a.ref = ANY($1::text[]) ORDER BY a.ref`,
    [ids],
  );
  return rows;
}

/** How often detection was asked about each of `refs` since `from` (its request log's index). */
function askedAbout(refs: string[], from: number): number[] {
  const asked = h.detection.requests.slice(from).flatMap((r) => (r.boxId === undefined ? r.refs : []));
  return refs.map((ref) => asked.filter((r) => r === ref).length);
}

describe('the evaluation retry job on two replicas', () => {
  it('when both replicas run passes at once over pending avatars, then detection is asked about each once and each opens one violation', async () => {
    const { refs } = await pendingImpostors(12);
    const from = h.detection.requests.length;
    const runs = await Promise.all([
      h.running.retryEvaluations(),
      replica.retryEvaluations(),
      replica.retryEvaluations(),
      h.running.retryEvaluations(),
    ]);
    expect(runs.reduce((sum, n) => sum + n, 0)).toBe(12);
    expect(askedAbout(refs, from)).toEqual(refs.map(() => 1));
    expect(await stateOf(refs)).toEqual(
      refs.map((ref) => ({ ref, evaluation: 'completed', violations: 1, open: 1 })),
    );
  });

  it('when the replica evaluating avatars stalls past its lease and then resumes, then the other evaluates them only once the lease ran out, and the late answers open or close nothing', async () => {
    const { refs, name } = await pendingImpostors(4);
    const from = h.detection.requests.length;
    // The second replica leases the avatars and asks detection, which does not know the identity
    // yet: its answer ("no match") is held back, as if its process were paused, or cut off and back.
    const identities = h.detection.identities;
    h.detection.identities = identities.filter((identity) => identity.name !== name);
    const held = h.detection.holdNextEvaluation();
    const stalled = replica.retryEvaluations();
    await held.received;
    h.detection.identities = identities;
    // Within its lease the other replica leaves them alone.
    h.clock.advance(LEASE_MS - 1000);
    expect(await h.running.retryEvaluations()).toBe(0);
    // Once it ran out, the other replica evaluates them: one violation each.
    h.clock.advance(2000);
    expect(await h.running.retryEvaluations()).toBe(4);
    const evaluated = await stateOf(refs);
    expect(evaluated.map((a) => [a.evaluation, a.violations, a.open])).toEqual(
      refs.map(() => ['completed', 1, 1]),
    );
    // The stalled replica resumes with its older answer, which would resolve every one of them
    // ("modified"): nothing of it is applied.
    held.release();
    expect(await stalled).toBe(0);
    expect((await stateOf(refs)).map((a) => [a.violations, a.open])).toEqual(refs.map(() => [1, 1]));
    // The overtaken answer has the avatars asked about once more; that changes nothing either.
    await h.running.retryEvaluations();
    expect(await stateOf(refs)).toEqual(evaluated);
    expect(askedAbout(refs, from).every((n) => n <= 3)).toBe(true);
  });

  it('when answers are recorded, then one of the same projection is fresh when it read as far or further, whenever it was asked; otherwise when it was asked no earlier', async () => {
    const { refs } = await pendingImpostors(1);
    const [ref = ''] = refs;
    const avatars = new AvatarRepository();
    const at = (ms: number) => new Date(Date.UTC(2026, 10, 30, 12, 0, 0, ms));
    const record = (asked: Parameters<AvatarRepository['recordAnswer']>[2]) =>
      db.transaction((tx) => avatars.recordAnswer(tx, ref, asked));
    const p = (position: number, projection = 'p1') => ({ projection, position });
    expect(await record({ at: at(100), knowledge: p(10) })).toBe(true);
    // Asked later, read less: stale. Asked earlier, read further: fresh. The same position: fresh.
    expect(await record({ at: at(200), knowledge: p(9) })).toBe(false);
    expect(await record({ at: at(50), knowledge: p(11) })).toBe(true);
    expect(await record({ at: at(50), knowledge: p(11) })).toBe(true);
    // Without a position (a detection of an earlier release), or of a rebuilt projection: by time.
    expect(await record({ at: at(40) })).toBe(false);
    expect(await record({ at: at(60) })).toBe(true);
    expect(await record({ at: at(55), knowledge: p(1, 'p2') })).toBe(false);
    expect(await record({ at: at(70), knowledge: p(1, 'p2') })).toBe(true);
    expect(await record({ at: at(20), knowledge: p(2, 'p2') })).toBe(true);
  });

  it('when an answer asked first knows more than one asked after it (its request waited), then the later "no match" closes nothing the earlier match opened', async () => {
    // Issue #34's soak: two full evaluations of one avatar; the first asked waited (a busy replica)
    // and was answered after its box reached detection; the second, asked later, was answered by a
    // replica that had not read the box yet. Ordered by when they were asked, the second's "no
    // match" closed the first's violation ("modified"), and the box's scan opened a second one.
    const { refs, name } = await pendingImpostors(3);
    const identities = h.detection.identities;
    h.detection.identities = identities.filter((identity) => identity.name !== name);
    const from = h.detection.requests.length;
    // Asked first: its request waits, and is answered at release (knowing the identity by then).
    const first = h.detection.holdNextEvaluation({ answeredAtRelease: true });
    const waiting = replica.retryEvaluations();
    await first.received;
    // Asked after the first's lease ran out, by the other replica: answered now ("no match", the
    // fake does not know the identity yet) and held back.
    h.clock.advance(LEASE_MS + 1000);
    const second = h.detection.holdNextEvaluation();
    const behind = h.running.retryEvaluations();
    await second.received;
    h.detection.identities = identities;
    first.release();
    expect(await waiting).toBe(3);
    expect((await stateOf(refs)).map((a) => [a.evaluation, a.violations, a.open])).toEqual(
      refs.map(() => ['completed', 1, 1]),
    );
    // The second answer was asked later but knew less: it is stale, closes nothing, and the
    // avatars are asked about again, which confirms the match.
    second.release();
    expect(await behind).toBe(0);
    expect((await stateOf(refs)).map((a) => [a.violations, a.open])).toEqual(refs.map(() => [1, 1]));
    await h.running.retryEvaluations();
    expect((await stateOf(refs)).map((a) => [a.evaluation, a.violations, a.open])).toEqual(
      refs.map(() => ['completed', 1, 1]),
    );
    expect(askedAbout(refs, from).every((n) => n >= 2 && n <= 3)).toBe(true);
  });
});
