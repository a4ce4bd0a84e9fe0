import { z } from 'zod';
import { listOf } from '../common/schemas';
import { defineOperation } from '../common/operation';
import { pageQuerySchema } from '../common/schemas';

// Request logs (issue #32, "Platforms"): each API key's recent requests, newest first, for the
// platform's developers: when, which operation, what it answered, how fast, and the request id a
// support conversation starts from. Kept 3 days.

/** How long the request log keeps a request. */
export const REQUEST_LOG_RETENTION_DAYS = 3;

export const requestLogQuerySchema = pageQuerySchema.extend({
  keyId: z.string().max(100).optional().meta({ description: 'One key’s requests' }),
  requestId: z.string().max(200).optional().meta({ description: 'The request with this X-Request-Id' }),
  status: z.enum(['2xx', '4xx', '5xx']).optional().meta({ description: 'Answers of this class only' }),
});

export const requestLogEntrySchema = z
  .object({
    at: z.iso.datetime(),
    keyId: z.string(),
    method: z.string(),
    path: z.string().meta({ description: 'Without the query string' }),
    operation: z
      .string()
      .nullable()
      .meta({ description: 'The operation id; null for a path no operation serves' }),
    status: z.number().int(),
    latencyMs: z.number().int(),
    requestId: z.string(),
  })
  .meta({ id: 'RequestLogEntry' });

export const requestLogOperations = {
  listRequestLogs: defineOperation({
    service: 'gateway',
    tags: ['Dashboard'],
    auth: 'session',
    id: 'dashboardListRequestLogs',
    method: 'get',
    path: '/dashboard/api/request-logs',
    summary: `The signed-in platform's API requests of the last ${REQUEST_LOG_RETENTION_DAYS} days, newest first, by key, request id or status class`,
    description:
      "Every request made with one of the tenant's API keys (dashboard calls are not logged): time, key, method, path, operation, status, latency and request id. Each gateway replica writes its requests every second, so the newest may take a second to show.",
    request: { query: requestLogQuerySchema },
    responses: { 200: { description: 'Requests, newest first', schema: listOf(requestLogEntrySchema) } },
  }),
};
