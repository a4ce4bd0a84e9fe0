import { errors } from '@svc/errors';
import { platformNow } from './platform-clock';
import type { Caller, EnforcementContext } from './ports';
import { closeViolation, lockCase, type ViolationCase } from './violation-lifecycle';
import type { Resolution } from './violation';

export interface ResolveInput {
  resolution: Resolution;
  avatarId: string;
  licenseId?: string | undefined;
  notes?: string | undefined;
}

/**
 * The hosting platform complied: the violation becomes resolved and its grace period resolved
 * (from pending, or appealed: a pending appeal is then withdrawn). Anything else is 409.
 */
export async function resolveViolation(
  ctx: EnforcementContext,
  caller: Caller,
  violationId: string,
  input: ResolveInput,
): Promise<ViolationCase> {
  const result = await ctx.db.transaction(async (tx) => {
    const current = await lockCase(ctx, tx, violationId, caller.platformId);
    if (current.avatar.id !== input.avatarId) {
      throw errors.validation(`avatarId ${input.avatarId} is not the avatar of violation ${violationId}`, {
        fields: [{ field: 'avatarId', message: `expected ${current.avatar.id}` }],
      });
    }
    const now = await platformNow(ctx, tx, caller.platformId);
    return closeViolation(
      ctx,
      tx,
      current,
      {
        kind: 'resolve',
        resolution: input.resolution,
        licenseId: input.licenseId ?? null,
        notes: input.notes ?? null,
      },
      now,
    );
  });
  ctx.eventsCommitted();
  return result;
}

/** The same, addressed by the grace period. */
export async function resolveGracePeriod(
  ctx: EnforcementContext,
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
