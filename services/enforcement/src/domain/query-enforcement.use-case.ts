import { errors } from '@svc/errors';
import type { Appeal } from './appeal';
import type { Avatar } from './avatar';
import { dayLength } from './timeline';
import type { GracePeriod, GracePeriodStatus } from './grace-period';
import { platformNow } from '@svc/clock';
import type { Queryable } from '@svc/ports';
import type { BoxView, Caller, Page, TimelineStep, UsesPorts } from './ports';
import type { Severity } from './severity';
import type { Violation, ViolationStatus } from './violation';

/** Everything a violation's or grace period's public form shows, read at the platform's `now`. */
export interface CaseView {
  violation: Violation;
  gracePeriod: GracePeriod;
  avatar: Avatar;
  steps: TimelineStep[];
  appeal: Appeal | null;
  /** The box owner's latest contest of the resolution. */
  contest: Appeal | null;
  /** The box's current configuration (pricing), else the one the violation was detected under. */
  policyConfig: Record<string, unknown>;
  now: Date;
}

function currentConfig(violation: Violation, box: BoxView | undefined): Record<string, unknown> {
  return box === undefined || box.deletedAt !== null ? violation.policyConfig : box.policyConfig;
}

/**
 * Runs a query use case's reads in one snapshot: read side by side on separate sessions, a
 * violation resolved between two reads showed its new status beside its old timeline or appeal.
 */
function inSnapshot<T>(ctx: UsesPorts<'db'>, read: (q: Queryable) => Promise<T>): Promise<T> {
  return ctx.db.transaction(read, { snapshot: true });
}

/** Assembles the views of many violations with a handful of queries (no query per row). */
async function views(
  ctx: UsesPorts<'avatars' | 'timeline' | 'appeals' | 'boxes'>,
  q: Queryable,
  violations: Violation[],
  gracePeriods: Map<string, GracePeriod>,
  now: Date,
): Promise<CaseView[]> {
  // One after the other: the snapshot is one session.
  const ids = violations.map((v) => v.id);
  const avatars = await ctx.avatars.findManyByRef(q, [...new Set(violations.map((v) => v.avatarRef))]);
  const steps = await ctx.timeline.forGracePeriods(
    q,
    violations.map((v) => v.gracePeriodId),
  );
  const appeals = await ctx.appeals.latestFor(q, ids);
  const boxes = await ctx.boxes.findMany(q, [...new Set(violations.map((v) => v.boxId))]);
  const contests = await ctx.appeals.latestFor(q, ids, 'contest');
  const result: CaseView[] = [];
  for (const violation of violations) {
    const gracePeriod = gracePeriods.get(violation.gracePeriodId);
    const avatar = avatars.get(violation.avatarRef);
    if (gracePeriod === undefined || avatar === undefined) continue;
    result.push({
      violation,
      gracePeriod,
      avatar,
      steps: steps.get(gracePeriod.id) ?? [],
      appeal: appeals.get(violation.id) ?? null,
      contest: contests.get(violation.id) ?? null,
      policyConfig: currentConfig(violation, boxes.get(violation.boxId)),
      now,
    });
  }
  return result;
}

export async function listViolations(
  ctx: UsesPorts<
    'db' | 'avatars' | 'violations' | 'gracePeriods' | 'timeline' | 'appeals' | 'boxes' | 'clocks' | 'clock'
  >,
  caller: Caller,
  filter: Page & {
    status?: ViolationStatus | undefined;
    boxId?: string | undefined;
    severity?: Severity | undefined;
  },
): Promise<{ items: CaseView[]; total: number }> {
  return inSnapshot(ctx, async (q) => {
    const now = await platformNow(ctx, q, caller.platformId);
    const { items, total } = await ctx.violations.list(q, { ...filter, platformId: caller.platformId });
    const gracePeriods = await ctx.gracePeriods.findMany(
      q,
      items.map((v) => v.gracePeriodId),
    );
    return { items: await views(ctx, q, items, gracePeriods, now), total };
  });
}

export async function getViolation(
  ctx: UsesPorts<
    'db' | 'avatars' | 'violations' | 'gracePeriods' | 'timeline' | 'appeals' | 'boxes' | 'clocks' | 'clock'
  >,
  caller: Caller,
  id: string,
): Promise<CaseView> {
  return inSnapshot(ctx, (q) => violationView(ctx, q, caller, id));
}

async function violationView(
  ctx: UsesPorts<
    'avatars' | 'violations' | 'gracePeriods' | 'timeline' | 'appeals' | 'boxes' | 'clocks' | 'clock'
  >,
  q: Queryable,
  caller: Caller,
  id: string,
): Promise<CaseView> {
  const violation = await ctx.violations.find(q, id);
  if (violation === null || violation.platformId !== caller.platformId)
    throw errors.notFound('Violation', id);
  const now = await platformNow(ctx, q, caller.platformId);
  const gracePeriods = await ctx.gracePeriods.findMany(q, [violation.gracePeriodId]);
  const [view] = await views(ctx, q, [violation], gracePeriods, now);
  if (view === undefined) throw errors.notFound('Violation', id);
  return view;
}

export async function listGracePeriods(
  ctx: UsesPorts<
    | 'db'
    | 'avatars'
    | 'violations'
    | 'gracePeriods'
    | 'timeline'
    | 'appeals'
    | 'boxes'
    | 'clocks'
    | 'clock'
    | 'environment'
  >,
  caller: Caller,
  filter: Page & {
    status?: GracePeriodStatus | undefined;
    boxId?: string | undefined;
    expiringWithin?: number | undefined;
  },
): Promise<{ items: CaseView[]; total: number }> {
  return inSnapshot(ctx, async (q) => {
    const now = await platformNow(ctx, q, caller.platformId);
    const { expiringWithin, ...rest } = filter;
    const window =
      expiringWithin === undefined
        ? {}
        : {
            expiringAfter: now,
            expiringBy: new Date(now.getTime() + expiringWithin * dayLength(ctx.environment)),
          };
    const { items, total } = await ctx.gracePeriods.list(q, {
      ...rest,
      ...window,
      platformId: caller.platformId,
    });
    const violations = await ctx.violations.findMany(
      q,
      items.map((gp) => gp.violationId),
    );
    const ordered = items.flatMap((gp) => {
      const violation = violations.get(gp.violationId);
      return violation === undefined ? [] : [violation];
    });
    return { items: await views(ctx, q, ordered, new Map(items.map((gp) => [gp.id, gp])), now), total };
  });
}

export async function getGracePeriod(
  ctx: UsesPorts<
    'db' | 'avatars' | 'violations' | 'gracePeriods' | 'timeline' | 'appeals' | 'boxes' | 'clocks' | 'clock'
  >,
  caller: Caller,
  id: string,
): Promise<CaseView> {
  return inSnapshot(ctx, async (q) => {
    const gracePeriod = await ctx.gracePeriods.find(q, id);
    if (gracePeriod === null || gracePeriod.platformId !== caller.platformId)
      throw errors.notFound('Grace period', id);
    return violationView(ctx, q, caller, gracePeriod.violationId);
  });
}

/** A violation of the owner's box, with the owner's latest contest of its resolution. */
export interface BoxViolationView {
  violation: Violation;
  gracePeriod: GracePeriod;
  avatar: Avatar;
  contest: Appeal | null;
  /** The hosting platform's time (its grace period runs on it). */
  now: Date;
}

/**
 * The box owner's view of its box's violations (issue 14): every hosting platform's, with how each
 * was resolved and on what evidence. 404 unless the caller owns the box (as the box projection knows it).
 */
export async function listBoxViolations(
  ctx: UsesPorts<'db' | 'avatars' | 'violations' | 'gracePeriods' | 'appeals' | 'boxes' | 'clocks' | 'clock'>,
  caller: Caller,
  boxId: string,
  filter: Page & { status?: ViolationStatus | undefined },
): Promise<{ items: BoxViolationView[]; total: number }> {
  return inSnapshot(ctx, async (q) => {
    const box = await ctx.boxes.find(q, boxId);
    if (box === null || box.ownerPlatformId !== caller.platformId) throw errors.notFound('Box', boxId);
    const { items, total } = await ctx.violations.listOnBox(q, { ...filter, boxId });
    const ids = items.map((v) => v.id);
    const gracePeriods = await ctx.gracePeriods.findMany(
      q,
      items.map((v) => v.gracePeriodId),
    );
    const avatars = await ctx.avatars.findManyByRef(q, [...new Set(items.map((v) => v.avatarRef))]);
    const contests = await ctx.appeals.latestFor(q, ids, 'contest');
    const nowOf = new Map<string, Date>();
    for (const platformId of new Set(items.map((v) => v.platformId))) {
      nowOf.set(platformId, await platformNow(ctx, q, platformId));
    }
    const views: BoxViolationView[] = [];
    for (const violation of items) {
      const gracePeriod = gracePeriods.get(violation.gracePeriodId);
      const avatar = avatars.get(violation.avatarRef);
      if (gracePeriod === undefined || avatar === undefined) continue;
      views.push({
        violation,
        gracePeriod,
        avatar,
        contest: contests.get(violation.id) ?? null,
        now: nowOf.get(violation.platformId) ?? ctx.clock.now(),
      });
    }
    return { items: views, total };
  });
}

/** At most this many of each list in the obligations answer. */
export const OBLIGATIONS_LIMIT = 1000;

/**
 * The second family's obligations (docs/spec/contracts.md §12): pending takedowns (enforced violations whose
 * avatar is still reported) and the grace periods still running (active or paused).
 */
export async function listObligations(
  ctx: UsesPorts<'db' | 'avatars' | 'violations' | 'gracePeriods' | 'clocks' | 'clock'>,
  caller: Caller,
) {
  return inSnapshot(ctx, async (q) => {
    const now = await platformNow(ctx, q, caller.platformId);
    const takedowns = await ctx.violations.takedowns(q, caller.platformId, OBLIGATIONS_LIMIT + 1);
    const open = await ctx.gracePeriods.open(q, caller.platformId, OBLIGATIONS_LIMIT + 1);
    const violations = await ctx.violations.findMany(
      q,
      open.map((gp) => gp.violationId),
    );
    const avatars = await ctx.avatars.findManyByRef(
      q,
      [...violations.values()].map((v) => v.avatarRef),
    );
    const gracePeriods = open.slice(0, OBLIGATIONS_LIMIT).map((gp) => {
      const violation = violations.get(gp.violationId);
      const avatar = violation === undefined ? undefined : avatars.get(violation.avatarRef);
      return { gracePeriod: gp, avatarIds: avatar === undefined ? [] : [avatar.id] };
    });
    return {
      now,
      takedowns: takedowns.slice(0, OBLIGATIONS_LIMIT),
      gracePeriods,
      truncated: takedowns.length > OBLIGATIONS_LIMIT || open.length > OBLIGATIONS_LIMIT,
    };
  });
}
