import { errors } from '@svc/errors';
import { ownedBox } from './access';
import { checkPolicyConfig, type Box, type Enforcement, type Policy } from './box';
import type { Caller, RegistryContext } from './ports';
import { boxEvent } from './registry-events';

export interface UpdateBoxInput {
  policy?: Policy | undefined;
  enforcement?: Enforcement | undefined;
  policyConfig?: Record<string, unknown> | undefined;
}

/**
 * The owner changes a box. The configuration (the new one, or the kept one) is checked against
 * the (new) policy: moving MONETIZE to BLOCK_ALL needs `policyConfig: {}` along with it.
 */
export async function updateBox(
  ctx: RegistryContext,
  caller: Caller,
  id: string,
  input: UpdateBoxInput,
): Promise<Box> {
  const box = await ctx.db.transaction(async (tx) => {
    const current = await ownedBox(ctx, tx, id, caller);
    const policy = input.policy ?? current.policy;
    const policyConfig = checkPolicyConfig(policy, input.policyConfig ?? current.policyConfig);
    const now = ctx.clock.now();
    const updated: Box = {
      ...current,
      policy,
      enforcement: input.enforcement ?? current.enforcement,
      policyConfig,
      updatedAt: now,
    };
    await ctx.boxes.update(tx, updated);
    const claim = await ctx.claims.find(tx, current.claimId);
    if (claim === null) throw errors.internal(new Error(`claim ${current.claimId} of box ${id} is missing`));
    await ctx.outbox(tx, boxEvent('updated', updated, claim, await ctx.entityVersion(tx, claim.id), now));
    return updated;
  });
  ctx.eventsCommitted();
  return box;
}
