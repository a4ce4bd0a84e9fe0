import type { Router } from 'express';
import {
  INTERNAL_DEAD_LETTERS_PATH,
  INTERNAL_DEAD_LETTERS_REPLAY_PATH,
  deadLetterQuerySchema,
  replayDeadLettersBodySchema,
} from '@svc/contracts/gateway';
import { AppError } from '@svc/errors';
import type { Logger } from '@svc/logger';
import type { DeadLetterAdmin } from '@svc/messaging';
import { authOf, parseBody, parseQuery } from '@svc/service-kit';

const queueQuerySchema = deadLetterQuerySchema.omit({ service: true });
const replayBodySchema = replayDeadLettersBodySchema.omit({ service: true });

/**
 * The internal operator endpoints behind the gateway's `/admin/dead-letters`: list the
 * dead-letter queues of this service's consumers and replay them. Operator tokens only.
 */
export function deadLetterRoutes(
  router: Router,
  options: { bus: DeadLetterAdmin; queues: readonly string[]; logger: Logger },
): void {
  const { bus, logger } = options;
  const selected = (queue: string | undefined): readonly string[] =>
    queue === undefined ? options.queues : options.queues.filter((name) => name === queue);

  router.get(INTERNAL_DEAD_LETTERS_PATH, async (req, res) => {
    requireOperator(req);
    const { queue, limit } = parseQuery(queueQuerySchema, req);
    const data = [];
    for (const name of selected(queue)) {
      data.push({
        queue: name,
        depth: await bus.deadLetterCount(name),
        messages: limit === 0 ? [] : await bus.listDeadLetters(name, limit),
      });
    }
    res.json({ data });
  });

  router.post(INTERNAL_DEAD_LETTERS_REPLAY_PATH, async (req, res) => {
    requireOperator(req);
    const { queue, limit } = parseBody(replayBodySchema, req);
    const data = [];
    for (const name of selected(queue)) {
      const replayed = await bus.replayDeadLetters(name, limit);
      if (replayed > 0) logger.info({ queue: name, replayed }, 'operator replayed dead letters');
      data.push({ queue: name, replayed });
    }
    res.json({ data });
  });
}

function requireOperator(req: Parameters<typeof authOf>[0]): void {
  if (authOf(req).role !== 'operator') {
    throw new AppError('FORBIDDEN', 'Dead letters are for operators (the gateway /admin API)');
  }
}
