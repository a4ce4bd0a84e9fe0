import type { Router } from 'express';
import { idParamSchema } from '@svc/contracts/common';
import {
  createWebhookBodySchema,
  deliveryParamsSchema,
  listDeliveriesQuerySchema,
  listWebhooksQuerySchema,
  testWebhookBodySchema,
  updateWebhookBodySchema,
} from '@svc/contracts/webhook-dispatcher';
import { authOf, parseBody, parseParams, parseQuery } from '@svc/service-kit';
import { listDeliveries, retryDelivery, sendTestEvent } from '../../domain/deliveries.use-case';
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  updateEndpoint,
} from '../../domain/manage-endpoints.use-case';
import type { WebhookContext } from '../../domain/ports';

/** `/v1/svc/webhooks…` (webhooks.operations.ts): parse, call the use case, respond. */
export function webhookRoutes(router: Router, ctx: WebhookContext): void {
  router.post('/v1/svc/webhooks/test', async (req, res) => {
    const input = parseBody(testWebhookBodySchema, req);
    res.status(202).json({ data: await sendTestEvent(ctx, authOf(req).platformId, input) });
  });

  router.post('/v1/svc/webhooks', async (req, res) => {
    const input = parseBody(createWebhookBodySchema, req);
    res.status(201).json({ data: await createEndpoint(ctx, authOf(req).platformId, input) });
  });

  router.get('/v1/svc/webhooks', async (req, res) => {
    const page = parseQuery(listWebhooksQuerySchema, req);
    res.json(await listEndpoints(ctx, authOf(req).platformId, page));
  });

  router.get('/v1/svc/webhooks/:id', async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    res.json({ data: await getEndpoint(ctx, authOf(req).platformId, id) });
  });

  router.patch('/v1/svc/webhooks/:id', async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const input = parseBody(updateWebhookBodySchema, req);
    res.json({ data: await updateEndpoint(ctx, authOf(req).platformId, id, input) });
  });

  router.delete('/v1/svc/webhooks/:id', async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    res.json({ data: await deleteEndpoint(ctx, authOf(req).platformId, id) });
  });

  router.post('/v1/svc/webhooks/:id/rotate-secret', async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    res.json({ data: await rotateEndpointSecret(ctx, authOf(req).platformId, id) });
  });

  router.get('/v1/svc/webhooks/:id/deliveries', async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const query = parseQuery(listDeliveriesQuerySchema, req);
    res.json(await listDeliveries(ctx, authOf(req).platformId, id, query));
  });

  router.post('/v1/svc/webhooks/:id/deliveries/:deliveryId/retry', async (req, res) => {
    const { id, deliveryId } = parseParams(deliveryParamsSchema, req);
    res.status(202).json({ data: await retryDelivery(ctx, authOf(req).platformId, id, deliveryId) });
  });
}
