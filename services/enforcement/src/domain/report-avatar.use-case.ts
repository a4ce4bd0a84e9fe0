import { errors, isTransientFailure } from '@svc/errors';
import type { Avatar, AvatarInput } from './avatar';
import { EVALUATION_LEASE_MS, evaluateAvatars } from './evaluate-avatars.use-case';
import { platformNow } from '@svc/clock';
import type { Caller, UsesPorts } from './ports';
import { snapshotOf } from './resolution-check';
import { closeViolation } from './violation-lifecycle';

export interface AvatarWithViolations {
  avatar: Avatar;
  openViolations: string[];
}

async function withViolations(
  ctx: UsesPorts<'db' | 'violations'>,
  avatar: Avatar,
): Promise<AvatarWithViolations> {
  const open = await ctx.violations.openIdsForAvatars(ctx.db, [avatar.ref]);
  return { avatar, openViolations: open.get(avatar.ref) ?? [] };
}

/**
 * After a change: evaluate at once; when detection is down the avatar stays pending for the retry job.
 *
 * The change is committed (and with it the request's Idempotency-Key, ADR 0011) before this runs,
 * so nothing here may turn the request into an error: a 5xx now would leave the key committed
 * with no answer, and the client's retry would be told the answer is lost (409) for a write that
 * succeeded. Whatever fails here (the database going away between the two transactions, most
 * often) leaves the avatar pending for the evaluation worker, and the answer is the
 * state the change committed. The change is stored holding its own evaluation lease, so the
 * worker (kicked by another request, or on another replica) does not ask detection about it too
 * while this request does; an answer or a recorded failure lets the lease go, and an avatar whose
 * request died is the worker's once the lease runs out (15 s).
 */
async function evaluateChanged(
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
    | 'workWaiting'
    | 'newId'
    | 'logger'
  >,
  committed: AvatarWithViolations,
): Promise<AvatarWithViolations> {
  try {
    await evaluateAvatars(ctx, [committed.avatar]);
    ctx.workWaiting();
    const current = await ctx.avatars.findByRef(ctx.db, committed.avatar.ref);
    return await withViolations(ctx, current ?? committed.avatar);
  } catch (err) {
    const level = isTransientFailure(err) ? 'warn' : 'error';
    ctx.logger[level](
      { err, avatarRef: committed.avatar.ref },
      'avatar committed but not evaluated in the request: left pending for the evaluation worker',
    );
    ctx.workWaiting();
    return committed;
  }
}

/** Told the stored avatar (pending evaluation) before detection is asked: the answer if nothing else succeeds. */
export type OnStored = (stored: AvatarWithViolations, created: boolean) => void;

/**
 * A platform reports an avatar it hosts (docs/spec/contracts.md §8): stored first (pending evaluation), then
 * run through detection. Re-posting the same id changes it and evaluates it again.
 */
export async function reportAvatar(
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
    | 'workWaiting'
    | 'newId'
    | 'logger'
  >,
  caller: Caller,
  id: string,
  input: AvatarInput,
  onStored?: OnStored,
): Promise<AvatarWithViolations & { created: boolean }> {
  const { committed, created } = await ctx.db.transaction(async (tx) => {
    const now = await platformNow(ctx, tx, caller.platformId);
    const heldUntil = new Date(ctx.clock.now().getTime() + EVALUATION_LEASE_MS);
    const existing = await ctx.avatars.find(tx, caller.platformId, id, { lock: true });
    const pending = {
      ...input,
      platformDomain: caller.platformDomain,
      platformName: caller.platformName ?? null,
      evaluation: 'pending' as const,
      evaluationAttempts: 0,
      nextEvaluationAt: ctx.clock.now(),
      lastEvaluationError: null,
      updatedAt: now,
    };
    if (existing === null) {
      const fresh: Avatar = {
        ref: ctx.newId('av'),
        platformId: caller.platformId,
        id,
        revision: 1,
        match: null,
        createdAt: now,
        deletedAt: null,
        ...pending,
      };
      await ctx.avatars.insert(tx, fresh, heldUntil);
      return { committed: { avatar: fresh, openViolations: [] }, created: true };
    }
    const revived = existing.deletedAt !== null;
    const changed: Avatar = {
      ...existing,
      ...pending,
      revision: existing.revision + 1,
      ...(revived ? { createdAt: now, deletedAt: null, match: null } : {}),
    };
    await ctx.avatars.update(tx, changed, heldUntil);
    // Read with the change, so the answer is whole even if nothing after the commit succeeds.
    const open = await ctx.violations.openIdsForAvatars(tx, [changed.ref]);
    return { committed: { avatar: changed, openViolations: open.get(changed.ref) ?? [] }, created: revived };
  });
  onStored?.(committed, created);
  return { ...(await evaluateChanged(ctx, committed)), created };
}

/** PATCH: the given fields change (null clears an optional one); then it is evaluated again. */
export async function updateAvatar(
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
    | 'workWaiting'
    | 'newId'
    | 'logger'
  >,
  caller: Caller,
  id: string,
  changes: Partial<AvatarInput>,
  onStored?: OnStored,
): Promise<AvatarWithViolations> {
  const current = await getAvatar(ctx, caller, id);
  const input: AvatarInput = {
    name: changes.name ?? current.avatar.name,
    description: changes.description === undefined ? current.avatar.description : changes.description,
    imageUrl: changes.imageUrl === undefined ? current.avatar.imageUrl : changes.imageUrl,
    creatorId: changes.creatorId ?? current.avatar.creatorId,
    creatorName: changes.creatorName === undefined ? current.avatar.creatorName : changes.creatorName,
    creatorEmail: changes.creatorEmail === undefined ? current.avatar.creatorEmail : changes.creatorEmail,
    userCount: changes.userCount ?? current.avatar.userCount,
    commercial: changes.commercial ?? current.avatar.commercial,
  };
  const { avatar, openViolations } = await reportAvatar(ctx, caller, id, input, onStored);
  return { avatar, openViolations };
}

/** One of the caller's reported avatars; 404 for another platform's or a deleted one. */
export async function getAvatar(
  ctx: UsesPorts<'db' | 'avatars' | 'violations'>,
  caller: Caller,
  id: string,
): Promise<AvatarWithViolations> {
  const avatar = await ctx.avatars.find(ctx.db, caller.platformId, id);
  if (avatar === null || avatar.deletedAt !== null) throw errors.notFound('Avatar', id);
  return withViolations(ctx, avatar);
}

export async function listAvatars(
  ctx: UsesPorts<'db' | 'avatars' | 'violations'>,
  caller: Caller,
  filter: {
    limit: number;
    offset: number;
    evaluation?: 'pending' | 'completed' | undefined;
    creatorId?: string | undefined;
  },
): Promise<{ items: AvatarWithViolations[]; total: number }> {
  const { items, total } = await ctx.avatars.list(ctx.db, { ...filter, platformId: caller.platformId });
  const open = await ctx.violations.openIdsForAvatars(
    ctx.db,
    items.map((a) => a.ref),
  );
  return { items: items.map((avatar) => ({ avatar, openViolations: open.get(avatar.ref) ?? [] })), total };
}

/** The platform took the avatar down: it is no longer reported and its open violations are resolved as removed. */
export async function deleteAvatar(
  ctx: UsesPorts<
    | 'db'
    | 'avatars'
    | 'violations'
    | 'gracePeriods'
    | 'timeline'
    | 'appeals'
    | 'clocks'
    | 'clock'
    | 'outbox'
    | 'eventsCommitted'
  >,
  caller: Caller,
  id: string,
): Promise<{ avatar: Avatar; resolvedViolations: string[] }> {
  const result = await ctx.db.transaction(async (tx) => {
    const avatar = await ctx.avatars.find(tx, caller.platformId, id, { lock: true });
    if (avatar === null || avatar.deletedAt !== null) throw errors.notFound('Avatar', id);
    const now = await platformNow(ctx, tx, caller.platformId);
    const deleted: Avatar = { ...avatar, deletedAt: now, updatedAt: now };
    await ctx.avatars.update(tx, deleted);
    const resolvedViolations: string[] = [];
    for (const open of await ctx.violations.openForAvatar(tx, avatar.ref)) {
      const gracePeriod = await ctx.gracePeriods.find(tx, open.gracePeriodId, { lock: true });
      const violation = await ctx.violations.find(tx, open.id, { lock: true });
      if (gracePeriod === null || violation === null) continue;
      await closeViolation(
        ctx,
        tx,
        { violation, gracePeriod, avatar: deleted },
        {
          kind: 'resolve',
          resolution: 'removed',
          resolvedBy: 'platform',
          evidence: { avatar: { ...snapshotOf(deleted), removedAt: now.toISOString() } },
        },
        now,
      );
      resolvedViolations.push(open.id);
    }
    return { avatar: deleted, resolvedViolations };
  });
  ctx.eventsCommitted();
  return result;
}
