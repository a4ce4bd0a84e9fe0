import type { Router } from 'express';
import { enforcementOperations as ops } from '@svc/contracts/enforcement';
import { daysRemaining } from '../../domain/grace-period';
import type { EnforcementContext } from '../../domain/ports';
import { listObligations } from '../../domain/query-enforcement.use-case';
import { callerOf } from './caller';
import { respond } from '@svc/service-kit';

/** `GET /enforcement/obligations` (docs/spec/contracts.md §12): snake_case. */
export function obligationsRoutes(router: Router, ctx: EnforcementContext): void {
  router.get(ops.obligations.path, async (req, res) => {
    const { now, takedowns, gracePeriods, truncated } = await listObligations(ctx, callerOf(req));
    respond(res, ops.obligations, 200, {
      takedowns: takedowns.map(({ violation, avatar }) => ({
        violation_id: violation.id,
        avatar_id: avatar.id,
        avatar_name: avatar.name,
        creator_id: avatar.creatorId,
        box_id: violation.boxId,
        identity_id: violation.claimId,
        identity_name: violation.identityName,
        enforced_at: (violation.enforcedAt ?? violation.detectedAt).toISOString(),
      })),
      grace_periods: gracePeriods.map(({ gracePeriod: gp, avatarIds }) => ({
        grace_period_id: gp.id,
        violation_id: gp.violationId,
        box_id: gp.boxId,
        identity_id: gp.claimId,
        identity_name: gp.identityName,
        status: gp.status,
        started_at: gp.startedAt.toISOString(),
        expires_at: gp.expiresAt.toISOString(),
        days_remaining: daysRemaining(gp, now),
        avatar_ids: avatarIds,
      })),
      truncated,
    });
  });
}
