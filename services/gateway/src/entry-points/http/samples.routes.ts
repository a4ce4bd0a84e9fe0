import path from 'node:path';
import type { Router } from 'express';
import { errors } from '@svc/errors';
import type { GatewayContext } from '../../domain/gateway-context';

/** services/gateway/samples, from src/entry-points/http as from dist/entry-points/http. */
const SAMPLES_DIR = path.resolve(__dirname, '../../../samples');

/** The pictures a sandbox serves, so that the README's walk-through has images the checks can fetch. */
export const SAMPLE_PICTURES = ['sample-portrait.png', 'sample-avatar.png'] as const;

/**
 * `GET /samples/<picture>`: two PNG pictures, without a key, in a sandbox deployment only (a
 * production gateway answers 404). The README's walk-through claims an identity with the portrait
 * as its reference image and checks avatars against it; the embedded default allows the
 * detection service to fetch them from the gateway's own address (SVC_ALLOW_PRIVATE_FETCH).
 */
export function sampleRoutes(router: Router, ctx: GatewayContext): void {
  if (ctx.environment !== 'sandbox') return;
  const known = new Set<string>(SAMPLE_PICTURES);
  router.get('/samples/:file', (req, res) => {
    const file = String(req.params.file);
    if (!known.has(file)) throw errors.notFound('Sample picture', file);
    res.type('png').set('Cache-Control', 'public, max-age=86400').sendFile(path.join(SAMPLES_DIR, file));
  });
}
