import { errors } from '@svc/errors';
import { events } from './enforcement-events';
import { add, firePlatformBatch, firePlatformSteps, type SchedulerRun } from './fire-due-steps.use-case';
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
  // The move and the first batch of what it makes due commit together (firePlatformBatch): no
  // scheduler sees the new time before those steps have fired, so the answer counts them.
  const { offsetMs, now, first } = await ctx.db.transaction(async (tx) => {
    const offset = await ctx.clocks.advance(tx, caller.platformId, seconds * 1000, ctx.clock.now());
    const now = new Date(ctx.clock.now().getTime() + offset);
    await ctx.outbox(tx, events.clockAdvanced(caller.platformId, now, seconds));
    const first = await firePlatformBatch(ctx, tx, { id: caller.platformId, offsetMs: offset });
    return { offsetMs: offset, now, first };
  });
  ctx.eventsCommitted();
  // More than a batch (or steps a batch left for their turn): on, batch after batch.
  const run = first.run;
  add(run, await firePlatformSteps(ctx, caller.platformId, offsetMs));
  return { now, run };
}

/** The caller's sandbox clock: real time plus how far it was advanced (sandbox keys only). */
export async function readSandboxClock(
  ctx: UsesPorts<'db' | 'clocks' | 'clock'>,
  caller: Caller,
): Promise<{ now: Date; offsetMs: number }> {
  if (caller.environment !== 'sandbox')
    throw errors.forbidden('Test helpers are available to sandbox keys only');
  const offsetMs = await ctx.clocks.offsetOf(ctx.db, caller.platformId);
  return { now: new Date(ctx.clock.now().getTime() + offsetMs), offsetMs };
}
