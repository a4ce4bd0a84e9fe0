import type { Router } from 'express';
import { idParamSchema } from '@svc/contracts/common';
import {
  createWebhookBodySchema,
  createWebhookOperation,
  deleteWebhookOperation,
  deliveryParamsSchema,
  getWebhookOperation,
  listDeliveriesQuerySchema,
  listWebhookDeliveriesOperation,
  listWebhooksOperation,
  listWebhooksQuerySchema,
  replayWebhookBodySchema,
  replayWebhookOperation,
  retryWebhookDeliveryOperation,
  rotateWebhookSecretOperation,
  testWebhookBodySchema,
  testWebhookOperation,
  updateWebhookBodySchema,
  updateWebhookOperation,
} from '@svc/contracts/webhook-dispatcher';
import { authOf, parseBody, parseParams, parseQuery, respond } from '@svc/service-kit';
import { listDeliveries, replayFailed, retryDelivery, sendTestEvent } from '../../domain/deliveries.use-case';
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
    respond(res, testWebhookOperation, 202, {
      data: await sendTestEvent(ctx, authOf(req).platformId, input),
    });
  });

  router.post('/v1/svc/webhooks', async (req, res) => {
    const input = parseBody(createWebhookBodySchema, req);
    respond(res, createWebhookOperation, 201, {
      data: await createEndpoint(ctx, authOf(req).platformId, input),
    });
  });

  router.get('/v1/svc/webhooks', async (req, res) => {
    const page = parseQuery(listWebhooksQuerySchema, req);
    respond(res, listWebhooksOperation, 200, await listEndpoints(ctx, authOf(req).platformId, page));
  });

  router.get('/v1/svc/webhooks/:id', async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    respond(res, getWebhookOperation, 200, { data: await getEndpoint(ctx, authOf(req).platformId, id) });
  });

  router.patch('/v1/svc/webhooks/:id', async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const input = parseBody(updateWebhookBodySchema, req);
    respond(res, updateWebhookOperation, 200, {
      data: await updateEndpoint(ctx, authOf(req).platformId, id, input),
    });
  });

  router.delete('/v1/svc/webhooks/:id', async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    respond(res, deleteWebhookOperation, 200, {
      data: await deleteEndpoint(ctx, authOf(req).platformId, id),
    });
  });

  router.post('/v1/svc/webhooks/:id/rotate-secret', async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    respond(res, rotateWebhookSecretOperation, 200, {
      data: await rotateEndpointSecret(ctx, authOf(req).platformId, id),
    });
  });

  router.get('/v1/svc/webhooks/:id/deliveries', async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const query = parseQuery(listDeliveriesQuerySchema, req);
    respond(
      res,
      listWebhookDeliveriesOperation,
      200,
      await listDeliveries(ctx, authOf(req).platformId, id, query),
    );
  });

  router.post('/v1/svc/webhooks/:id/replay', async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const { since } = parseBody(replayWebhookBodySchema, req);
    respond(res, replayWebhookOperation, 202, {
      data: await replayFailed(ctx, authOf(req).platformId, id, new Date(since)),
    });
  });

  router.post('/v1/svc/webhooks/:id/deliveries/:deliveryId/retry', async (req, res) => {
    const { id, deliveryId } = parseParams(deliveryParamsSchema, req);
    respond(res, retryWebhookDeliveryOperation, 202, {
      data: await retryDelivery(ctx, authOf(req).platformId, id, deliveryId),
    });
  });
}
