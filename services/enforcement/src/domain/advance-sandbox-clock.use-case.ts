import { errors } from '@svc/errors';
import { events } from './enforcement-events';
import { firePlatformSteps, type SchedulerRun } from './fire-due-steps.use-case';
import type { Caller, UsesPorts } from './ports';

/**
 * Sandbox test helper (docs/spec/contracts.md §9): the caller's clock moves forward by `seconds`; every
 * timed step of that platform that falls due fires, in order, with its events and notifications,
 * before this returns. Licensing hears enforcement.clock.advanced and expires the platform's
 * licenses that fall due. Other platforms' clocks are untouched.
 */
export async function advanceSandboxClock(
  ctx: UsesPorts<
    'db' | 'violations' | 'gracePeriods' | 'timeline' | 'clocks' | 'clock' | 'outbox' | 'eventsCommitted'
  >,
  caller: Caller,
  seconds: number,
): Promise<{ now: Date; run: SchedulerRun }> {
  if (caller.environment !== 'sandbox')
    throw errors.forbidden('Test helpers are available to sandbox keys only');
  const { offsetMs, now } = await ctx.db.transaction(async (tx) => {
    const offset = await ctx.clocks.advance(tx, caller.platformId, seconds * 1000, ctx.clock.now());
    const now = new Date(ctx.clock.now().getTime() + offset);
    await ctx.outbox(tx, events.clockAdvanced(caller.platformId, now, seconds));
    return { offsetMs: offset, now };
  });
  ctx.eventsCommitted();
  const run = await firePlatformSteps(ctx, caller.platformId, offsetMs);
  return { now, run };
}
