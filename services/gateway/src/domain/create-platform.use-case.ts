import { newId } from '@svc/ids';
import type { Clock } from '@svc/clock';
import type { Queryable } from '@svc/ports';
import { errors } from '@svc/errors';
import { limitsFor, type Limits, type Plan } from './plans';
import type { Platform, PlatformStore } from './ports';

export interface CreatePlatformInput {
  name: string;
  plan: Plan;
  domain?: string | undefined;
  limits?: Partial<Limits> | undefined;
}

/** The operator registers an API customer; only enterprise platforms carry agreed limits. */
export async function createPlatform(
  deps: { db: Queryable; platforms: PlatformStore; clock: Clock },
  input: CreatePlatformInput,
): Promise<Platform> {
  if (input.limits !== undefined && input.plan !== 'enterprise') {
    throw errors.validation(
      'limits are agreed for enterprise platforms only; other plans use the plan limits',
      {
        fields: [{ field: 'limits', message: `not allowed for plan ${input.plan}` }],
      },
    );
  }
  const platform: Platform = {
    id: newId('plat'),
    name: input.name,
    plan: input.plan,
    domain: input.domain?.toLowerCase() ?? null,
    limits: limitsFor(input.plan, input.limits ?? null),
    createdAt: deps.clock.now(),
  };
  await deps.platforms.insert(deps.db, platform);
  return platform;
}
