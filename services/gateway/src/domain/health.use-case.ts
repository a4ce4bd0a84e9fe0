import type { ServiceName } from '@svc/contracts/common';
import {
  INTERNAL_DEAD_LETTERS_PATH,
  INTERNAL_HEALTH_PATH,
  serviceDeadLetterQueueSchema,
  serviceHealthSchema,
} from '@svc/contracts/gateway';
import { isAppError } from '@svc/errors';
import type { ReadinessReport } from '@svc/service-kit';
import { z } from 'zod';
import { operatorClaims } from './dispatch-request.use-case';
import type { UpstreamClient } from './upstream.client';

interface Deps {
  upstreams: UpstreamClient;
  environment: 'sandbox' | 'production';
}

// A service that has not answered by then is shown unreachable: the page must not wait 10 s.
const HEALTH_TIMEOUT_MS = 3000;

const healthAnswer = z.object({ data: serviceHealthSchema });
const deadLettersAnswer = z.object({ data: z.array(serviceDeadLetterQueueSchema) });

/**
 * The operator's view of the system: the gateway's own readiness, then each deployed service's
 * readiness, outbox backlog and dead-letter depth, asked of its internal endpoints in parallel.
 * A service that does not answer is a row that is not ready, and is named in `meta.unreachable`.
 */
export async function systemHealth(
  deps: Deps,
  input: { readiness: () => Promise<ReadinessReport>; requestId: string },
) {
  const ask = async (service: ServiceName, path: string): Promise<unknown> => {
    const response = await deps.upstreams.forward(service, operatorClaims(deps.environment), {
      method: 'GET',
      path,
      requestId: input.requestId,
      timeoutMs: HEALTH_TIMEOUT_MS,
    });
    if (response.status !== 200) {
      throw new Error(`answered ${response.status}: ${response.body.toString('utf8').slice(0, 200)}`);
    }
    return JSON.parse(response.body.toString('utf8')) as unknown;
  };
  const own = await input.readiness();
  const unreachable: Array<{ service: string; error: string }> = [];
  const services = await Promise.all(
    deps.upstreams.deployedServices().map(async (service) => {
      try {
        const [health, deadLetters] = await Promise.all([
          ask(service, INTERNAL_HEALTH_PATH).then((body) => healthAnswer.parse(body).data),
          ask(service, `${INTERNAL_DEAD_LETTERS_PATH}?limit=0`).then(
            (body) => deadLettersAnswer.parse(body).data,
          ),
        ]);
        return {
          service,
          ...health,
          deadLetters: deadLetters.reduce((total, queue) => total + queue.depth, 0),
        };
      } catch (err) {
        unreachable.push({
          service,
          error: isAppError(err) || err instanceof Error ? err.message : String(err),
        });
        return {
          service,
          ready: false,
          checks: [],
          outboxBacklog: null,
          oldestUnsentSeconds: null,
          deadLetters: null,
        };
      }
    }),
  );
  const gateway = {
    service: 'gateway',
    ready: own.ready,
    checks: own.checks,
    outboxBacklog: null,
    oldestUnsentSeconds: null,
    deadLetters: null,
  };
  return { data: [gateway, ...services], meta: { unreachable } };
}
