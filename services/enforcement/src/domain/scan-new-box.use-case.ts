import type { EventEnvelope } from '@svc/contracts/common';
import { boxIndexed } from '@svc/contracts/detection';
import type { Queryable } from '@svc/ports';
import { events } from './enforcement-events';
import { applyEvaluation, toEvaluate } from './evaluate-avatars.use-case';
import { MATCH_KEYS_VERSION } from '@svc/name-matching';
import type { BoxScan, ScanFilter, UsesPorts } from './ports';

/** Avatars asked about per call to detection. */
export const SCAN_PAGE = 100;
/** Avatars given today's match keys per scan pass, when some were made by older rules. */
const FILL_KEYS_BATCH = 500;
/** Extended page by page; also how long a scan waits when a pass dies half-way (kept short). */
const LEASE_MS = 30_000;
const MAX_RETRY_MS = 5 * 60_000;

/**
 * detection.box.indexed: the first time a box is matchable, its initial scan is recorded; the
 * scan worker runs it (the message is acknowledged at once, the scan survives restarts).
 *
 * A later indexing means that what matches the box, or how it is judged, has changed: detection
 * announces every registry.box.* it applies (a new policy or configuration, new names or reference
 * pictures once fingerprinted, a re-verification after a suspension, for which the registry
 * re-publishes the box). The box is then scanned again from the first avatar, so that avatars
 * reported before the change are judged by it (a scan only opens violations; one already open on
 * the box is kept). A scan running then starts over.
 */
export async function startScanOnIndexed(
  ctx: UsesPorts<'scans' | 'clock'>,
  tx: Queryable,
  envelope: EventEnvelope,
): Promise<boolean> {
  const d = boxIndexed.parse(envelope).data;
  if (d.firstIndexed) return ctx.scans.start(tx, d.boxId, ctx.clock.now());
  await ctx.scans.restart(tx, d.boxId, ctx.clock.now());
  return true;
}

/** Detection could not answer: the scan is tried again later, with backoff; its lease is let go. */
async function failedStep(
  ctx: UsesPorts<'db' | 'scans' | 'clock'>,
  scan: BoxScan,
  err: unknown,
): Promise<PageStep> {
  const attempts = scan.attempts + 1;
  const failed: BoxScan = {
    ...scan,
    attempts,
    nextAttemptAt: new Date(
      ctx.clock.now().getTime() + Math.min(MAX_RETRY_MS, 1000 * 2 ** Math.min(attempts, 20)),
    ),
    lastError: (err instanceof Error ? err.message : String(err)).slice(0, 500),
    leaseUntil: null,
  };
  const current = await ctx.db.transaction((tx) =>
    ctx.scans.update(tx, failed, scan.leaseUntil ?? undefined),
  );
  return { scan: failed, failed: true, superseded: !current };
}

/**
 * What the box's identity is matched by, from detection (issue #34): a scan then reads only the
 * avatars that can match it by name, or carry a picture, instead of every avatar reported (the work
 * of all scans grew with the square of the boxes). Keys made by other rules than this replica's
 * (detection upgraded first, or last) say nothing: every avatar is asked about, as before.
 */
async function scanFilter(ctx: UsesPorts<'detection'>, boxId: string): Promise<ScanFilter | undefined> {
  const { version, keys } = await ctx.detection.boxMatchKeys(boxId);
  return version === MATCH_KEYS_VERSION ? { version, keys } : undefined;
}

/**
 * One page's outcome; `superseded`: the box's scan was restarted meanwhile, or its lease ran out and
 * another worker took it over: this worker's round ends unwritten.
 */
interface PageStep {
  scan: BoxScan;
  failed: boolean;
  superseded?: boolean;
}

/**
 * One page of a scan: up to 100 reported avatars of every platform after the cursor, evaluated
 * against the box only; breaches open violations. The cursor and counts advance after the
 * page is applied, so a crash repeats at most one page (opening a violation is idempotent: one
 * open violation per avatar and box). Detection down: retried later with backoff.
 */
async function scanPage(
  ctx: UsesPorts<
    | 'db'
    | 'avatars'
    | 'violations'
    | 'gracePeriods'
    | 'timeline'
    | 'appeals'
    | 'boxes'
    | 'licenses'
    | 'clocks'
    | 'scans'
    | 'detection'
    | 'clock'
    | 'environment'
    | 'outbox'
    | 'eventsCommitted'
    | 'newId'
  >,
  scan: BoxScan,
  only: ScanFilter | undefined,
): Promise<PageStep> {
  // Every write of the scan is fenced by the lease this worker holds: one that stalled past it
  // (paused, cut off) must not undo, or complete again, what the worker that took over wrote.
  const held = scan.leaseUntil ?? undefined;
  const { avatars: page, passed } = await ctx.avatars.scanPage(ctx.db, scan.cursorSeq, SCAN_PAGE, only);
  if (page.length === 0) {
    const now = ctx.clock.now();
    const completed: BoxScan = {
      ...scan,
      avatarsScanned: scan.avatarsScanned + passed,
      status: 'completed',
      completedAt: now,
      lastError: null,
      leaseUntil: null,
    };
    const current = await ctx.db.transaction(async (tx) => {
      if (!(await ctx.scans.update(tx, completed, held))) return false;
      await ctx.outbox(tx, events.boxScanCompleted(completed, now));
      return true;
    });
    if (!current) return { scan, failed: false, superseded: true };
    ctx.eventsCommitted();
    return { scan: completed, failed: false };
  }
  let answers;
  const askedAt = ctx.clock.now();
  try {
    answers = await ctx.detection.evaluate(
      page.map(({ avatar }) => toEvaluate(avatar)),
      scan.boxId,
    );
  } catch (err) {
    return failedStep(ctx, scan, err);
  }
  let created = 0;
  for (const { avatar } of page) {
    const match = answers.matches.get(avatar.ref) ?? null;
    if (match === null || match.boxId !== scan.boxId) continue;
    const asked = { at: askedAt, knowledge: answers.knowledge };
    created += (await applyEvaluation(ctx, avatar.ref, null, match, asked, scan.boxId)).violationsCreated;
  }
  const last = page[page.length - 1];
  const advanced: BoxScan = {
    ...scan,
    cursorSeq: last === undefined ? scan.cursorSeq : last.seq,
    avatarsScanned: scan.avatarsScanned + passed,
    violationsCreated: scan.violationsCreated + created,
    attempts: 0,
    lastError: null,
    // Still ours: the lease is extended page by page.
    leaseUntil: new Date(ctx.clock.now().getTime() + LEASE_MS),
  };
  const current = await ctx.db.transaction((tx) => ctx.scans.update(tx, advanced, held));
  return { scan: advanced, failed: false, superseded: !current };
}

/** The scan worker's pass: every due scan, page after page, until each completes or detection fails. */
export async function runBoxScans(
  ctx: UsesPorts<
    | 'db'
    | 'avatars'
    | 'violations'
    | 'gracePeriods'
    | 'timeline'
    | 'appeals'
    | 'boxes'
    | 'licenses'
    | 'clocks'
    | 'scans'
    | 'detection'
    | 'clock'
    | 'environment'
    | 'outbox'
    | 'eventsCommitted'
    | 'newId'
  >,
): Promise<number> {
  let completed = 0;
  // Avatars written before match keys (or by older rules) get today's, so that scans can skip them.
  while ((await ctx.avatars.fillMatchKeys(ctx.db, FILL_KEYS_BATCH)) === FILL_KEYS_BATCH);
  for (;;) {
    const now = ctx.clock.now();
    const leased = await ctx.db.transaction((tx) =>
      ctx.scans.leaseDue(tx, now, new Date(now.getTime() + LEASE_MS)),
    );
    if (leased === null) return completed;
    let step: PageStep = { scan: leased, failed: false };
    let only: ScanFilter | undefined;
    try {
      only = await scanFilter(ctx, leased.boxId);
    } catch (err) {
      step = await failedStep(ctx, leased, err);
    }
    while (step.scan.status === 'in_progress' && !step.failed && step.superseded !== true)
      step = await scanPage(ctx, step.scan, only);
    // Restarted while this worker held it: the new round is due now, for the next lease.
    if (step.superseded === true) continue;
    if (step.scan.status === 'completed') completed += 1;
    // Detection is down: the other scans wait for their own next attempt.
    if (step.failed) return completed;
  }
}
