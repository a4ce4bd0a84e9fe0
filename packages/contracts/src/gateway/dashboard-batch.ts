import { z } from 'zod';
import { dataOf } from '../common/schemas';
import { defineOperation } from '../common/operation';

// The dashboard's batch of reads (issue #32, "Budgets"): a page's reads of the public API sent as
// one call, answered as each would have been answered alone, and counted once against the
// session's own budget (docs/spec/contracts.md §17). A box page reads the box, six months of
// statistics, its requests, licenses and violations: twelve calls alone, two batches together.

/** The most reads one batch carries. */
export const MAX_BATCH_READS = 20;

const readSchema = z.object({
  path: z.string().min(1).max(2000).regex(/^\//, 'a path starting with /').meta({
    description:
      'Path and query of a GET operation of the public API (`/v1/svc/…`, `/identity/…`, `/licensing/…`, `/revenue/…`, `/enforcement/…`), as it would be sent alone',
    example: '/v1/svc/boxes/box_7Hq2/stats?period=2026-10',
  }),
});

export const batchReadBodySchema = z
  .object({ requests: z.array(readSchema).min(1).max(MAX_BATCH_READS) })
  .meta({ id: 'DashboardBatchRead' });

const answerSchema = z.object({
  status: z.number().int().meta({ description: 'The status the read would have answered alone' }),
  retryAfter: z
    .number()
    .int()
    .optional()
    .meta({ description: 'Seconds, when that answer carried Retry-After (a 503)' }),
  body: z.unknown().meta({ description: 'Its JSON body: the operation’s answer, or the error envelope' }),
});

export const batchReadAnswerSchema = z
  .object({ responses: z.array(answerSchema) })
  .meta({ id: 'DashboardBatchAnswer' });

export const dashboardBatchOperations = {
  batchRead: defineOperation({
    service: 'gateway',
    tags: ['Dashboard'],
    auth: 'session',
    id: 'dashboardBatchRead',
    method: 'post',
    path: '/dashboard/api/batch',
    summary: `Up to ${MAX_BATCH_READS} reads of the public API in one call, counted once against the session's budget`,
    description:
      "Each read is a GET operation of the public API, made as the session's tenant exactly as if sent alone, and answered in the same order with its own status and body (an error is that read's, not the batch's). A path outside the public API, a write, or an operation with a rate bucket of its own is refused (400, naming `requests.N.path`). The batch is refused whole (429) when the session's budget is spent.",
    request: {
      body: batchReadBodySchema,
      example: {
        requests: [{ path: '/v1/svc/boxes/box_7Hq2' }, { path: '/v1/svc/boxes/box_7Hq2/stats' }],
      },
    },
    responses: {
      200: {
        description: 'The answers, in the order of the reads',
        schema: dataOf(batchReadAnswerSchema),
        example: {
          data: {
            responses: [
              { status: 200, body: { data: { id: 'box_7Hq2' } } },
              {
                status: 404,
                body: { error: { code: 'NOT_FOUND', message: 'Box not found' } },
              },
            ],
          },
        },
      },
    },
  }),
};
