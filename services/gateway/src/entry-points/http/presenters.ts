import { errors } from '@svc/errors';
import type { GatewayContext } from '../../domain/gateway-context';
import type { IssuedKey } from '../../domain/issue-api-key.use-case';
import type { StartedSession } from '../../domain/start-session';
import type { ApiKeyRecord, Platform } from '../../domain/ports';

/** The public form of a platform. */
export function presentPlatform(platform: Platform) {
  return {
    id: platform.id,
    name: platform.name,
    plan: platform.plan,
    domain: platform.domain,
    limits: platform.limits,
    createdAt: platform.createdAt.toISOString(),
  };
}

/** A freshly issued key: the only time its secret is shown. */
export function presentKey(issued: IssuedKey) {
  return {
    id: issued.id,
    key: issued.key,
    name: issued.name,
    scope: issued.scope,
    environment: issued.environment,
    createdAt: issued.createdAt.toISOString(),
  };
}

function keyStatus(key: ApiKeyRecord, now: Date): 'active' | 'expiring' | 'expired' | 'revoked' {
  if (key.revokedAt !== null) return 'revoked';
  if (key.expiresAt === null) return 'active';
  return key.expiresAt.getTime() > now.getTime() ? 'expiring' : 'expired';
}

/** A key's state (never its secret or hash). */
export function presentKeySummary(key: ApiKeyRecord, now: Date) {
  return {
    id: key.id,
    name: key.name,
    last4: key.last4,
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    scope: key.scope,
    environment: key.environment,
    status: keyStatus(key, now),
    createdAt: key.createdAt.toISOString(),
    expiresAt: key.expiresAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
    replacedBy: key.replacedBy,
  };
}

/** A platform with the state of each of its keys (never a secret or a hash). */
export async function describePlatform(ctx: GatewayContext, id: string) {
  const platform = await ctx.platforms.find(ctx.db, id);
  if (platform === null) throw errors.notFound('Platform', id);
  const now = ctx.clock.now();
  const keys = await ctx.keys.listForPlatform(ctx.db, id);
  return {
    ...presentPlatform(platform),
    keys: keys.map((key) => presentKeySummary(key, now)),
  };
}

/** A signed-in session as the dashboard reads it (DashboardSession). */
export function presentSession(
  ctx: GatewayContext,
  session: Pick<StartedSession, 'account' | 'csrfToken' | 'expiresAt'>,
) {
  const { account } = session;
  return {
    account: {
      id: account.id,
      email: account.email,
      name: account.name,
      role: account.role,
      platformId: account.platformId,
      memberRole: account.role === 'operator' ? null : account.memberRole,
    },
    csrfToken: session.csrfToken,
    expiresAt: session.expiresAt.toISOString(),
    environment: ctx.environment,
  };
}
