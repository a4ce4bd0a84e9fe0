import { errors } from '@svc/errors';
import {
  checkPolicyConfig,
  DEFAULT_ENFORCEMENT,
  INITIAL_SCAN_ESTIMATE_MS,
  type Box,
  type Enforcement,
  type Policy,
} from './box';
import { isVisibleTo } from './claim';
import type { Caller, RegistryContext } from './ports';
import { boxEvent } from './registry-events';

export interface CreateBoxInput {
  claimId: string;
  policy: Policy;
  enforcement?: Enforcement | undefined;
  policyConfig?: Record<string, unknown> | undefined;
}

export interface CreatedBox {
  box: Box;
  initialScan: { status: 'in_progress'; estimatedCompletion: Date };
}

/**
 * The owner of a verified claim protects it with a policy: one box per claim. Detection starts
 * the initial scan of existing avatars when it receives `registry.box.created`.
 */
export async function createBox(
  ctx: RegistryContext,
  caller: Caller,
  input: CreateBoxInput,
): Promise<CreatedBox> {
  const policyConfig = checkPolicyConfig(input.policy, input.policyConfig);
  const box = await ctx.db.transaction(async (tx) => {
    const claim = await ctx.claims.find(tx, input.claimId, { lock: true });
    // Another platform's claim, verified or not, is not the caller's to box: 404, as if absent.
    if (
      claim === null ||
      !isVisibleTo(claim, caller.platformId) ||
      claim.ownerPlatformId !== caller.platformId
    ) {
      throw errors.notFound('Claim', input.claimId);
    }
    if (claim.status !== 'verified') {
      throw errors.invalidState(`Claim ${claim.id} is ${claim.status}: only a verified claim can be boxed`, {
        claimStatus: claim.status,
      });
    }
    if (claim.boxId !== null) {
      throw errors.invalidState(`Claim ${claim.id} already has a box`, { boxId: claim.boxId });
    }
    const now = ctx.clock.now();
    const created: Box = {
      id: ctx.newId('box'),
      claimId: claim.id,
      ownerPlatformId: caller.platformId,
      policy: input.policy,
      enforcement: input.enforcement ?? DEFAULT_ENFORCEMENT,
      policyConfig,
      status: 'active',
      createdAt: now,
      updatedAt: now,
      identityName: claim.name,
    };
    if (!(await ctx.boxes.insert(tx, created))) {
      throw errors.invalidState(`Claim ${claim.id} already has a box`);
    }
    await ctx.outbox(
      tx,
      boxEvent(
        'created',
        created,
        { ...claim, boxId: created.id },
        await ctx.entityVersion(tx, claim.id),
        now,
      ),
    );
    return created;
  });
  ctx.eventsCommitted();
  return {
    box,
    initialScan: {
      status: 'in_progress',
      estimatedCompletion: new Date(box.createdAt.getTime() + INITIAL_SCAN_ESTIMATE_MS),
    },
  };
}
