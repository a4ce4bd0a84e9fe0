import type { AvatarMatch } from '@svc/contracts/detection';
import type { Queryable } from '@svc/ports';
import { nextEvaluationDelay, type Avatar } from './avatar';
import type { AvatarToEvaluate, DetectionAnswers } from './detection.client';
import { platformNow } from '@svc/clock';
import { judgeMatch, type MatchOutcome } from './policy-breach';
import type { AskedAt, UsesPorts } from './ports';
import { snapshotOf } from './resolution-check';
import { closeViolation, openViolation } from './violation-lifecycle';
import type { Resolution } from './violation';

/** What detection is asked about an avatar. */
export function toEvaluate(avatar: Avatar): AvatarToEvaluate {
  return {
    ref: avatar.ref,
    name: avatar.name,
    ...(avatar.description === null ? {} : { description: avatar.description }),
    ...(avatar.imageUrl === null ? {} : { imageUrl: avatar.imageUrl }),
  };
}

/** How a violation closes when a re-evaluation no longer finds a breach. */
function resolutionFor(outcome: MatchOutcome | null): Resolution {
  if (outcome === 'licensed') return 'licensed';
  if (outcome === 'parody') return 'parody';
  return 'modified';
}

export interface AppliedEvaluation {
  applied: boolean;
  violationsCreated: number;
}

const NOT_APPLIED: AppliedEvaluation = { applied: false, violationsCreated: 0 };

/**
 * Applies detection's answer about one avatar, in its own transaction. A full evaluation (an
 * avatar reported or changed) records the best match and reconciles the avatar's violations: a
 * breach opens one (unless one is open on that box); no match, or a match that no longer breaks
 * the policy, resolves what it no longer justifies. A scan (`boxId`) only opens violations on the
 * new box. An answer about an older revision, or a deleted avatar, is dropped.
 *
 * Answers can arrive in any order (an evaluation asked before a box was indexed may come back after
 * that box's scan opened a violation), and be asked in one order and answered with knowledge in
 * the other (the first question's request waited longer, or reached a replica that had read
 * further: issue #34's soak saw a later "no match" close a violation an earlier answer opened). So
 * each answer carries how far detection's index had read its projection (`asked.knowledge`), and
 * one that knew less than the newest applied answer is stale; between answers without it (a
 * detection of an earlier release), or of different projections, the one asked earlier is
 * (`asked.at`, wall clock). A stale scan is dropped (the newer full evaluation covered every box);
 * a stale full evaluation is asked again (the avatar is pending, due now) instead of closing what
 * the newer answer opened.
 */
export async function applyEvaluation(
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
    | 'clock'
    | 'environment'
    | 'outbox'
    | 'eventsCommitted'
    | 'newId'
  >,
  ref: string,
  revision: number | null,
  reported: AvatarMatch | null,
  asked: AskedAt,
  scanBoxId?: string,
): Promise<AppliedEvaluation> {
  const result = await ctx.db.transaction(async (tx) => {
    const avatar = await ctx.avatars.findByRef(tx, ref, { lock: true });
    if (avatar === null || avatar.deletedAt !== null) return NOT_APPLIED;
    if (revision !== null && avatar.revision !== revision) return NOT_APPLIED;
    if (!(await ctx.avatars.recordAnswer(tx, ref, asked))) {
      if (scanBoxId === undefined)
        await ctx.avatars.update(tx, {
          ...avatar,
          evaluation: 'pending',
          nextEvaluationAt: ctx.clock.now(),
          lastEvaluationError: null,
        });
      return NOT_APPLIED;
    }
    const match = await liveMatch(ctx, tx, reported);
    const outcome =
      match === null
        ? null
        : judgeMatch(match, avatar, {
            tiers: await ctx.licenses.activeTiers(tx, avatar.platformId, match.boxId),
          });
    const now = await platformNow(ctx, tx, avatar.platformId);
    let violationsCreated = 0;
    if (scanBoxId === undefined) {
      await ctx.avatars.update(tx, {
        ...avatar,
        evaluation: 'completed',
        evaluationAttempts: 0,
        nextEvaluationAt: null,
        lastEvaluationError: null,
        match:
          match === null || outcome === null
            ? null
            : {
                boxId: match.boxId,
                identityName: match.identityName,
                policy: match.policy,
                confidence: match.confidence,
                outcome,
              },
      });
      for (const open of await ctx.violations.openForAvatar(tx, avatar.ref)) {
        const stillJustified = match !== null && (open.boxId !== match.boxId || outcome === 'violation');
        if (stillJustified) continue;
        const gracePeriod = await ctx.gracePeriods.find(tx, open.gracePeriodId, { lock: true });
        const violation = await ctx.violations.find(tx, open.id, { lock: true });
        if (gracePeriod === null || violation === null) continue;
        await closeViolation(
          ctx,
          tx,
          { violation, gracePeriod, avatar },
          {
            kind: 'resolve',
            resolution: resolutionFor(outcome),
            resolvedBy: 'avatar_change',
            evidence: {
              avatar: snapshotOf(avatar),
              reevaluation: {
                matched: match !== null && match.boxId === open.boxId,
                confidence: match?.boxId === open.boxId ? match.confidence : null,
                parodyLikelihood: match?.boxId === open.boxId ? match.parodyLikelihood : null,
              },
            },
            notes: 'Re-evaluated after a change',
          },
          now,
        );
      }
    }
    if (match !== null && outcome === 'violation' && (scanBoxId === undefined || scanBoxId === match.boxId)) {
      const open = await ctx.violations.openForAvatar(tx, avatar.ref);
      if (!open.some((v) => v.boxId === match.boxId)) {
        await openViolation(ctx, tx, avatar, match, now);
        violationsCreated += 1;
      }
    }
    return { applied: true, violationsCreated };
  });
  ctx.eventsCommitted();
  return result;
}

/** A match on a box the projection knows was deleted is no match. */
async function liveMatch(
  ctx: UsesPorts<'boxes'>,
  tx: Queryable,
  match: AvatarMatch | null,
): Promise<AvatarMatch | null> {
  if (match === null) return null;
  const box = await ctx.boxes.find(tx, match.boxId);
  return box !== null && box.deletedAt !== null ? null : match;
}

/** Detection could not answer: the avatar stays pending and is tried again later (never lost). */
async function recordFailure(
  ctx: UsesPorts<'db' | 'avatars' | 'clock'>,
  avatar: Avatar,
  err: unknown,
): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const current = await ctx.avatars.findByRef(tx, avatar.ref, { lock: true });
    if (current === null || current.revision !== avatar.revision || current.evaluation !== 'pending') return;
    const attempts = current.evaluationAttempts + 1;
    await ctx.avatars.update(tx, {
      ...current,
      evaluationAttempts: attempts,
      nextEvaluationAt: new Date(ctx.clock.now().getTime() + nextEvaluationDelay(attempts)),
      lastEvaluationError: err instanceof Error ? err.message.slice(0, 500) : String(err),
    });
  });
}

/**
 * Asks detection about pending avatars (at most 100) and applies each answer. When detection is
 * down every avatar stays pending with its next attempt scheduled; returns how many were applied.
 */
export async function evaluateAvatars(
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
    | 'detection'
    | 'clock'
    | 'environment'
    | 'outbox'
    | 'eventsCommitted'
    | 'newId'
  >,
  avatars: Avatar[],
): Promise<number> {
  if (avatars.length === 0) return 0;
  let answers: DetectionAnswers;
  const askedAt = ctx.clock.now();
  try {
    answers = await ctx.detection.evaluate(avatars.map(toEvaluate));
  } catch (err) {
    // Down, timed out, circuit open, or an answer we cannot read: the avatars stay pending and
    // are tried again later; the platform's request never fails for it.
    for (const avatar of avatars) await recordFailure(ctx, avatar, err);
    return 0;
  }
  let applied = 0;
  for (const avatar of avatars) {
    const match = answers.matches.get(avatar.ref);
    if (match === undefined) {
      await recordFailure(ctx, avatar, new Error('detection did not answer about this avatar'));
      continue;
    }
    const asked = { at: askedAt, knowledge: answers.knowledge };
    if ((await applyEvaluation(ctx, avatar.ref, avatar.revision, match, asked)).applied) applied += 1;
  }
  return applied;
}

/**
 * A pass holds its avatars this long: one call to detection (5 s timeout) and up to 100 short
 * transactions fit well inside it. It is also how long avatars wait when a pass dies half-way (the
 * database went away, the process was killed): kept short so that a protected identity's
 * violation is not held back a minute after an outage. Two passes on one avatar are harmless
 * (applyEvaluation locks the avatar and checks its revision and when the answer was asked). A
 * reporting request holds its new change for as long, while it asks detection itself.
 */
export const EVALUATION_LEASE_MS = 15_000;
const RETRY_BATCH = 100;

/** The evaluation worker's pass: pending avatars whose next attempt is due, 100 at a time. */
export async function retryPendingEvaluations(
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
    | 'detection'
    | 'clock'
    | 'environment'
    | 'outbox'
    | 'eventsCommitted'
    | 'newId'
  >,
): Promise<number> {
  let applied = 0;
  for (;;) {
    const now = ctx.clock.now();
    const due = await ctx.db.transaction((tx) =>
      ctx.avatars.leaseDueEvaluations(tx, now, new Date(now.getTime() + EVALUATION_LEASE_MS), RETRY_BATCH),
    );
    if (due.length === 0) return applied;
    const done = await evaluateAvatars(ctx, due);
    applied += done;
    // Detection is down: stop here; the leases and the backoff keep the rest for later.
    if (done === 0 || due.length < RETRY_BATCH) return applied;
  }
}
