import type { AvatarMatch } from '@svc/contracts/detection';
import { errors } from '@svc/errors';
import type { Queryable } from '@svc/ports';
import type { Avatar } from './avatar';
import { toEvaluate } from './evaluate-avatars.use-case';
import { platformNow } from '@svc/clock';
import type { Caller, UsesPorts } from './ports';
import {
  checkLicense,
  checkReevaluation,
  requireLicenseId,
  snapshotOf,
  type ResolutionEvidence,
} from './resolution-check';
import { closeViolation, lockCase, type ViolationCase } from './violation-lifecycle';
import { nextViolationStatus, type Resolution, type Violation } from './violation';

export interface ResolveInput {
  resolution: Resolution;
  avatarId: string;
  licenseId?: string | undefined;
  notes?: string | undefined;
}

/** Detection's answer about the avatar as it is now, and the revision it was asked about. */
interface Reevaluation {
  revision: number;
  match: AvatarMatch | null;
}

function checkAvatar(violationId: string, avatar: Avatar, avatarId: string): void {
  if (avatar.id !== avatarId) {
    throw errors.validation(`avatarId ${avatarId} is not the avatar of violation ${violationId}`, {
      fields: [{ field: 'avatarId', message: `expected ${avatar.id}` }],
    });
  }
}

async function visibleViolation(
  ctx: UsesPorts<'violations'>,
  q: Queryable,
  caller: Caller,
  violationId: string,
): Promise<Violation> {
  const violation = await ctx.violations.find(q, violationId);
  if (violation === null || violation.platformId !== caller.platformId) {
    throw errors.notFound('Violation', violationId);
  }
  return violation;
}

/**
 * `modified` and `parody` rest on the avatar as it is now: detection evaluates it again on the
 * violation's box. Asked before the transaction, so that no lock is held over an HTTP call; the
 * transaction then refuses the answer if the avatar changed meanwhile.
 */
async function reevaluate(
  ctx: UsesPorts<'db' | 'avatars' | 'violations' | 'detection'>,
  caller: Caller,
  violationId: string,
  input: ResolveInput,
): Promise<Reevaluation> {
  const violation = await visibleViolation(ctx, ctx.db, caller, violationId);
  const avatar = await ctx.avatars.findByRef(ctx.db, violation.avatarRef);
  if (avatar === null) throw errors.notFound('Violation', violationId);
  checkAvatar(violationId, avatar, input.avatarId);
  nextViolationStatus(violation, 'resolve');
  // Detection down: 503 SERVICE_UNAVAILABLE (the platform retries); never resolved unchecked.
  const answers = await ctx.detection.evaluate([toEvaluate(avatar)], violation.boxId);
  const match = answers.matches.get(avatar.ref) ?? null;
  return {
    revision: avatar.revision,
    match: match !== null && match.boxId === violation.boxId ? match : null,
  };
}

/** The avatar is taken down by this call: it leaves the platform's avatars and obligations. */
async function removeAvatar(
  ctx: UsesPorts<'avatars' | 'violations' | 'gracePeriods' | 'timeline' | 'appeals' | 'outbox'>,
  tx: Queryable,
  current: ViolationCase,
  now: Date,
): Promise<{ avatar: Avatar; evidence: ResolutionEvidence }> {
  const avatar: Avatar = { ...current.avatar, deletedAt: now, updatedAt: now };
  await ctx.avatars.update(tx, avatar);
  const evidence = { avatar: { ...snapshotOf(avatar), removedAt: now.toISOString() } };
  // Its other open violations (on other boxes) are resolved as removed too, as a DELETE would.
  for (const other of await ctx.violations.openForAvatar(tx, avatar.ref)) {
    if (other.id === current.violation.id) continue;
    const gracePeriod = await ctx.gracePeriods.find(tx, other.gracePeriodId, { lock: true });
    const violation = await ctx.violations.find(tx, other.id, { lock: true });
    if (gracePeriod === null || violation === null) continue;
    await closeViolation(
      ctx,
      tx,
      { violation, gracePeriod, avatar },
      { kind: 'resolve', resolution: 'removed', resolvedBy: 'platform', evidence },
      now,
    );
  }
  return { avatar, evidence };
}

/**
 * The hosting platform says it complied: the resolution is checked against the facts in the same
 * transaction as the change (docs/spec/contracts.md §8), and only then is the violation resolved with its
 * grace period (from pending, or appealed: a pending appeal is then withdrawn). `licensed` needs
 * an active license of the platform on the box whose tier covers the avatar's use (the license row
 * is locked, so a lapse waits for this transaction and then re-opens enforcement); `removed` takes
 * the avatar down; `modified` needs detection to find that the avatar as it is now no longer breaks
 * the policy; `parody` needs a box that admits parody and an avatar likely parody. Otherwise 409
 * INVALID_STATE saying what would resolve it, and nothing changes (no event is published).
 */
export async function resolveViolation(
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
    | 'outbox'
    | 'eventsCommitted'
  >,
  caller: Caller,
  violationId: string,
  input: ResolveInput,
): Promise<ViolationCase> {
  const licenseId = input.resolution === 'licensed' ? requireLicenseId(input.licenseId) : null;
  const reevaluated =
    input.resolution === 'modified' || input.resolution === 'parody'
      ? await reevaluate(ctx, caller, violationId, input)
      : null;
  const result = await ctx.db.transaction(async (tx) => {
    const first = await visibleViolation(ctx, tx, caller, violationId);
    // The lock order of every flow: avatar, grace period, violation.
    await ctx.avatars.findByRef(tx, first.avatarRef, { lock: true });
    const current = await lockCase(ctx, tx, violationId, caller.platformId);
    checkAvatar(violationId, current.avatar, input.avatarId);
    nextViolationStatus(current.violation, 'resolve');
    const now = await platformNow(ctx, tx, caller.platformId);
    const { violation } = current;
    let evidence: ResolutionEvidence;
    let avatar = current.avatar;
    if (licenseId !== null) {
      const license = await ctx.licenses.find(tx, licenseId, { lock: true });
      evidence = checkLicense(license, licenseId, {
        platformId: caller.platformId,
        boxId: violation.boxId,
        policy: await currentPolicy(ctx, tx, violation),
        commercial: avatar.commercial,
      });
    } else if (input.resolution === 'removed') {
      ({ avatar, evidence } = await removeAvatar(ctx, tx, current, now));
    } else {
      if (reevaluated === null) throw new Error('unreachable: modified and parody are evaluated first');
      if (avatar.revision !== reevaluated.revision) {
        throw errors.invalidState(
          `Avatar ${avatar.id} changed while it was being evaluated: send the resolution again`,
          { resolution: input.resolution },
        );
      }
      const match = reevaluated.match;
      const box = match ?? (await currentBox(ctx, tx, violation));
      evidence = checkReevaluation(
        input.resolution as 'modified' | 'parody',
        avatar,
        { boxId: violation.boxId, policy: box.policy, enforcement: box.enforcement },
        match,
        await ctx.licenses.activeTiers(tx, caller.platformId, violation.boxId),
      );
    }
    return closeViolation(
      ctx,
      tx,
      { ...current, avatar },
      {
        kind: 'resolve',
        resolution: input.resolution,
        resolvedBy: 'platform',
        evidence,
        licenseId,
        notes: input.notes ?? null,
      },
      now,
    );
  });
  ctx.eventsCommitted();
  return result;
}

/** The box's policy and enforcement now (the projection), else as the violation was detected. */
async function currentBox(ctx: UsesPorts<'boxes'>, q: Queryable, violation: Violation) {
  const box = await ctx.boxes.find(q, violation.boxId);
  return box === null || box.deletedAt !== null
    ? { policy: violation.policy, enforcement: violation.enforcement }
    : { policy: box.policy, enforcement: box.enforcement };
}

async function currentPolicy(ctx: UsesPorts<'boxes'>, q: Queryable, violation: Violation) {
  return (await currentBox(ctx, q, violation)).policy;
}

/** The same, addressed by the grace period. */
export async function resolveGracePeriod(
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
    | 'outbox'
    | 'eventsCommitted'
  >,
  caller: Caller,
  gracePeriodId: string,
  input: ResolveInput,
): Promise<ViolationCase> {
  const gracePeriod = await ctx.gracePeriods.find(ctx.db, gracePeriodId);
  if (gracePeriod === null || gracePeriod.platformId !== caller.platformId) {
    throw errors.notFound('Grace period', gracePeriodId);
  }
  return resolveViolation(ctx, caller, gracePeriod.violationId, input);
}
