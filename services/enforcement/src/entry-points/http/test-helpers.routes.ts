import type { Router } from 'express';
import { advanceTimeBodySchema, enforcementOperations as ops } from '@svc/contracts/enforcement';
import { parseBody, respond } from '@svc/service-kit';
import { advanceSandboxClock, readSandboxClock } from '../../domain/advance-sandbox-clock.use-case';
import type { EnforcementContext } from '../../domain/ports';
import { callerOf } from './caller';

/** `POST /v1/svc/test-helpers/advance-time` and `GET …/clock` (docs/spec/contracts.md §9; sandbox keys only). */
export function testHelperRoutes(router: Router, ctx: EnforcementContext): void {
  router.get(ops.testHelperReadClock.path, async (req, res) => {
    const { now, offsetMs } = await readSandboxClock(ctx, callerOf(req));
    respond(res, ops.testHelperReadClock, 200, {
      data: { now: now.toISOString(), aheadBySeconds: Math.floor(offsetMs / 1000) },
    });
  });

  router.post(ops.testHelperAdvanceTime.path, async (req, res) => {
    const caller = callerOf(req);
    const { seconds } = parseBody(advanceTimeBodySchema, req);
    const { now, run } = await advanceSandboxClock(ctx, caller, seconds);
    respond(res, ops.testHelperAdvanceTime, 200, {
      data: { now: now.toISOString(), advancedBySeconds: seconds, stepsFired: run.fired },
    });
  });
}
