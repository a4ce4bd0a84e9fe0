import type { ServiceName } from '@svc/contracts/common';
import {
  INTERNAL_DEAD_LETTERS_PATH,
  INTERNAL_DEAD_LETTERS_REPLAY_PATH,
  serviceDeadLetterQueueSchema,
  serviceReplayedQueueSchema,
} from '@svc/contracts/gateway';
import { errors, isAppError } from '@svc/errors';
import { z } from 'zod';
import { operatorClaims } from './dispatch-request.use-case';
import type { UpstreamClient } from './upstream.client';

interface Deps {
  upstreams: UpstreamClient;
  environment: 'sandbox' | 'production';
}

interface Unreachable {
  service: string;
  error: string;
}

/**
 * The dead letters of every consuming service: the gateway asks each deployed service's internal
 * endpoint (each knows its own consumer queues, in embedded and cluster mode alike) and puts the
 * answers together. A service that does not answer is named in `meta.unreachable`.
 */
export async function listDeadLetters(
  deps: Deps,
  input: { service?: string | undefined; queue?: string | undefined; limit: number; requestId: string },
) {
  const search = new URLSearchParams({ limit: String(input.limit) });
  if (input.queue !== undefined) search.set('queue', input.queue);
  const answers = await fanOut(deps, input.service, (service) =>
    deps.upstreams.forward(service, operatorClaims(deps.environment), {
      method: 'GET',
      path: `${INTERNAL_DEAD_LETTERS_PATH}?${search.toString()}`,
      requestId: input.requestId,
    }),
  );
  const schema = z.object({ data: z.array(serviceDeadLetterQueueSchema) });
  const data = answers.ok.flatMap(({ service, body }) =>
    schema.parse(body).data.map((queue) => ({ service, ...queue })),
  );
  return { data, meta: { unreachable: answers.unreachable } };
}

/** Moves dead letters back to their consumer queues, service by service (see `listDeadLetters`). */
export async function replayDeadLetters(
  deps: Deps,
  input: { service?: string | undefined; queue?: string | undefined; limit: number; requestId: string },
) {
  const body = JSON.stringify({
    limit: input.limit,
    ...(input.queue === undefined ? {} : { queue: input.queue }),
  });
  const answers = await fanOut(deps, input.service, (service) =>
    deps.upstreams.forward(service, operatorClaims(deps.environment), {
      method: 'POST',
      path: INTERNAL_DEAD_LETTERS_REPLAY_PATH,
      requestId: input.requestId,
      body,
    }),
  );
  const schema = z.object({ data: z.array(serviceReplayedQueueSchema) });
  const data = answers.ok.flatMap(({ service, body: answer }) =>
    schema.parse(answer).data.map((queue) => ({ service, ...queue })),
  );
  return { data, meta: { unreachable: answers.unreachable } };
}

async function fanOut(
  deps: Deps,
  only: string | undefined,
  call: (service: ServiceName) => Promise<{ status: number; body: Buffer }>,
): Promise<{ ok: Array<{ service: ServiceName; body: unknown }>; unreachable: Unreachable[] }> {
  const services = deps.upstreams
    .deployedServices()
    .filter((service) => only === undefined || service === only);
  if (only !== undefined && services.length === 0) {
    throw errors.notFound('Service', only);
  }
  const settled = await Promise.all(
    services.map(async (service) => {
      try {
        const response = await call(service);
        if (response.status !== 200) {
          return {
            service,
            error: `answered ${response.status}: ${response.body.toString('utf8').slice(0, 200)}`,
          };
        }
        return { service, body: JSON.parse(response.body.toString('utf8')) as unknown };
      } catch (err) {
        return { service, error: isAppError(err) ? err.message : String(err) };
      }
    }),
  );
  const ok: Array<{ service: ServiceName; body: unknown }> = [];
  const unreachable: Unreachable[] = [];
  for (const outcome of settled) {
    if ('body' in outcome) ok.push({ service: outcome.service, body: outcome.body });
    else unreachable.push({ service: outcome.service, error: outcome.error });
  }
  return { ok, unreachable };
}
