import type { Router } from 'express';
import { FORGET_FACES_PATH, forgetFacesRequestSchema } from '@svc/contracts/detection';
import { parseBody } from '@svc/service-kit';
import { forgetFaces, type ForgetFacesDeps } from '../../domain/forget-faces.use-case';

/**
 * Internal: the registry's call before it answers a deletion or rejection. Served while the index
 * is still loading too (the rows go from the database; the index forgets what it holds).
 */
export function faceEnrolmentRoutes(router: Router, deps: ForgetFacesDeps): void {
  router.post(FORGET_FACES_PATH, async (req, res) => {
    const body = parseBody(forgetFacesRequestSchema, req);
    // eslint-disable-next-line no-restricted-syntax -- internal, not a public operation: its caller parses the answer with the contract's schema
    res.json(await forgetFaces(deps, body));
  });
}
