import type { Queryable } from '@svc/ports';
import { errors } from '@svc/errors';
import { limitsFor, type Limits, type Plan } from './plans';
import type { Platform, PlatformStore } from './ports';

/**
 * The operator moves a platform to another plan; its keys and sessions run under the new limits
 * from their next request (authentication reads the plan with the key). Only enterprise carries
 * agreed limits, as at creation.
 */
export async function changePlatformPlan(
  deps: { db: Queryable; platforms: PlatformStore },
  input: { id: string; plan: Plan; limits?: Partial<Limits> | undefined },
): Promise<Platform> {
  if (input.limits !== undefined && input.plan !== 'enterprise') {
    throw errors.validation(
      'limits are agreed for enterprise platforms only; other plans use the plan limits',
      { fields: [{ field: 'limits', message: `not allowed for plan ${input.plan}` }] },
    );
  }
  const limits = input.plan === 'enterprise' ? limitsFor('enterprise', input.limits ?? null) : null;
  if (!(await deps.platforms.changePlan(deps.db, input.id, input.plan, limits))) {
    throw errors.notFound('Platform', input.id);
  }
  const platform = await deps.platforms.find(deps.db, input.id);
  if (platform === null) throw errors.notFound('Platform', input.id);
  return platform;
}
