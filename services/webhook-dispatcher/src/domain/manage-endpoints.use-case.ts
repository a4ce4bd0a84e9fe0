import { AppError, errors } from '@svc/errors';
import type { Queryable } from '@svc/ports';
import { newId } from '@svc/ids';
import { validateEndpointUrl } from './endpoint-url';
import type { Endpoint, EndpointPatch, WebhookContext } from './ports';
import { generateSecret } from './webhook-signature';
import { endpointView, endpointWithSecretView } from './webhook-views';

/** During this long after a rotation both the new and the previous secret sign. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

type Ctx = Pick<
  WebhookContext,
  'db' | 'endpoints' | 'clock' | 'environment' | 'allowPrivateFetch' | 'maxEndpoints'
>;

/** Enabled endpoints a platform may have unless MAX_WEBHOOK_ENDPOINTS says otherwise. */
export const DEFAULT_MAX_ENDPOINTS = 20;

/**
 * Refuses one more enabled endpoint past the platform's quota (issue #30: endpoints were
 * unbounded). Runs in the transaction that then writes, under the platform's lock: two creations
 * at the limit less one do not both pass.
 */
async function requireRoomForOneMore(ctx: Ctx, tx: Queryable, platformId: string): Promise<void> {
  const limit = ctx.maxEndpoints ?? DEFAULT_MAX_ENDPOINTS;
  await ctx.endpoints.lockPlatform(tx, platformId);
  const used = await ctx.endpoints.countEnabled(tx, platformId);
  if (used >= limit) {
    throw new AppError(
      'FORBIDDEN',
      `Webhook endpoint limit reached: at most ${limit} enabled endpoints per platform; delete or disable one first`,
      { details: { quota: 'webhookEndpoints', limit, used } },
    );
  }
}

/** ['*'] for "all"; otherwise the distinct names, in a stable order. */
function normaliseEvents(events: string[] | undefined): string[] {
  if (events === undefined || events.includes('*')) return ['*'];
  return [...new Set(events)].sort();
}

async function owned(ctx: Ctx, platformId: string, id: string): Promise<Endpoint> {
  const endpoint = await ctx.endpoints.find(ctx.db, platformId, id);
  // Another platform's endpoint is "not found": its existence is never revealed.
  if (endpoint === null) throw errors.notFound('Webhook endpoint', id);
  return endpoint;
}

/** Registers an endpoint; the answer is the only time its secret is shown. */
export async function createEndpoint(
  ctx: Ctx,
  platformId: string,
  input: { url: string; events?: string[] | undefined; description?: string | undefined },
) {
  const url = await validateEndpointUrl(input.url, ctx);
  const now = ctx.clock.now();
  const endpoint: Endpoint = {
    id: newId('we'),
    platformId,
    url,
    events: normaliseEvents(input.events),
    description: input.description ?? null,
    status: 'enabled',
    disabledReason: null,
    disabledAt: null,
    secret: generateSecret(),
    previousSecret: null,
    previousSecretExpiresAt: null,
    consecutiveFailures: 0,
    failingSince: null,
    lastSuccessAt: null,
    breakerOpenUntil: null,
    createdAt: now,
    updatedAt: now,
  };
  await ctx.db.transaction(async (tx) => {
    await requireRoomForOneMore(ctx, tx, platformId);
    await ctx.endpoints.insert(tx, endpoint);
  });
  return endpointWithSecretView(endpoint);
}

export async function listEndpoints(ctx: Ctx, platformId: string, page: { limit: number; offset: number }) {
  const { items, total } = await ctx.endpoints.list(ctx.db, platformId, page);
  return { data: items.map(endpointView), meta: { total, limit: page.limit, offset: page.offset } };
}

export async function getEndpoint(ctx: Ctx, platformId: string, id: string) {
  return endpointView(await owned(ctx, platformId, id));
}

export async function updateEndpoint(
  ctx: Ctx,
  platformId: string,
  id: string,
  input: {
    url?: string | undefined;
    events?: string[] | undefined;
    description?: string | null | undefined;
    status?: 'enabled' | 'disabled' | undefined;
  },
) {
  const current = await owned(ctx, platformId, id);
  const patch: EndpointPatch = {};
  if (input.url !== undefined) patch.url = await validateEndpointUrl(input.url, ctx);
  if (input.events !== undefined) patch.events = normaliseEvents(input.events);
  if (input.description !== undefined) patch.description = input.description;
  if (input.status !== undefined) patch.status = input.status;
  await ctx.db.transaction(async (tx) => {
    // Enabling a disabled endpoint takes a place in the quota as creating one does.
    if (input.status === 'enabled' && current.status === 'disabled') {
      await requireRoomForOneMore(ctx, tx, platformId);
    }
    await ctx.endpoints.update(tx, id, patch, ctx.clock.now());
  });
  return endpointView(await owned(ctx, platformId, id));
}

export async function deleteEndpoint(ctx: Ctx, platformId: string, id: string) {
  await owned(ctx, platformId, id);
  await ctx.endpoints.delete(ctx.db, id);
  return { id, deleted: true as const };
}

/** A new secret; the previous one keeps signing (a second signature) for 24 hours. */
export async function rotateEndpointSecret(ctx: Ctx, platformId: string, id: string) {
  await owned(ctx, platformId, id);
  const now = ctx.clock.now();
  const previousSecretExpiresAt = new Date(now.getTime() + SECRET_OVERLAP_MS);
  await ctx.endpoints.rotateSecret(ctx.db, id, generateSecret(), previousSecretExpiresAt, now);
  const endpoint = await owned(ctx, platformId, id);
  return {
    ...endpointWithSecretView(endpoint),
    previousSecretExpiresAt: previousSecretExpiresAt.toISOString(),
  };
}

/** The secrets that sign a message now: the current one, and the previous one during its overlap. */
export function signingSecrets(
  endpoint: Pick<Endpoint, 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>,
  now: Date,
): string[] {
  const previousValid =
    endpoint.previousSecret !== null &&
    endpoint.previousSecretExpiresAt !== null &&
    endpoint.previousSecretExpiresAt.getTime() > now.getTime();
  return previousValid && endpoint.previousSecret !== null
    ? [endpoint.secret, endpoint.previousSecret]
    : [endpoint.secret];
}
