import { AppError, errors } from '@svc/errors';
import { assertVerifiable, verified, type Claim } from './claim';
import type { Caller, RegistryContext } from './ports';
import { claimEvent } from './registry-events';
import { publishBoxOf } from './update-claim.use-case';

export interface VerifyClaimInput {
  tier: 'SILVER' | 'GOLD';
  method?: string | undefined;
  documents?: string[] | undefined;
}

async function verify(
  ctx: RegistryContext,
  id: string,
  input: VerifyClaimInput,
  mayVerify: (claim: Claim) => boolean,
): Promise<Claim> {
  const claim = await ctx.db.transaction(async (tx) => {
    const found = await ctx.claims.find(tx, id, { lock: true });
    if (found === null || !mayVerify(found)) throw errors.notFound('Claim', id);
    assertVerifiable(found);
    const now = ctx.clock.now();
    const updated = verified(found, input, now);
    await ctx.claims.update(tx, updated);
    await ctx.outbox(tx, claimEvent('verified', updated, now));
    await publishBoxOf(ctx, tx, updated, now);
    return updated;
  });
  ctx.eventsCommitted();
  return claim;
}

/** The verification provider (the operator API) completed a verification of any claim. */
export function verifyClaim(
  ctx: RegistryContext,
  caller: Caller,
  id: string,
  input: VerifyClaimInput,
): Promise<Claim> {
  if (caller.role !== 'operator') throw new AppError('FORBIDDEN', 'Only the operator API verifies claims');
  return verify(ctx, id, input, () => true);
}

/** Sandbox test helper: a platform verifies one of its own claims at once. */
export function verifyOwnClaimForTesting(
  ctx: RegistryContext,
  caller: Caller,
  id: string,
  input: { tier?: 'SILVER' | 'GOLD' | undefined },
): Promise<Claim> {
  if (caller.environment !== 'sandbox') {
    throw new AppError('FORBIDDEN', 'Test helpers are available to sandbox keys only');
  }
  return verify(
    ctx,
    id,
    { tier: input.tier ?? 'SILVER', method: 'sandbox_test_helper' },
    (claim) => claim.ownerPlatformId === caller.platformId,
  );
}
