import type { Router } from 'express';
import { advanceTimeBodySchema, enforcementOperations as ops } from '@svc/contracts/enforcement';
import { parseBody, respond } from '@svc/service-kit';
import { advanceSandboxClock } from '../../domain/advance-sandbox-clock.use-case';
import type { EnforcementContext } from '../../domain/ports';
import { callerOf } from './caller';

/** `POST /v1/svc/test-helpers/advance-time` (docs/spec/contracts.md §9; sandbox keys only). */
export function testHelperRoutes(router: Router, ctx: EnforcementContext): void {
  router.post(ops.testHelperAdvanceTime.path, async (req, res) => {
    const caller = callerOf(req);
    const { seconds } = parseBody(advanceTimeBodySchema, req);
    const { now, run } = await advanceSandboxClock(ctx, caller, seconds);
    respond(res, ops.testHelperAdvanceTime, 200, {
      data: { now: now.toISOString(), advancedBySeconds: seconds, stepsFired: run.fired },
    });
  });
}
