import type { Router } from 'express';
import {
  consistencyProofQuerySchema,
  inclusionProofQuerySchema,
  logEntryIndexParamSchema,
  transparencyOperations as ops,
} from '@svc/contracts/licensing';
import { parseParams, parseQuery, respond } from '@svc/service-kit';
import type { Database } from '@svc/storage';
import {
  consistencyProofOf,
  entryFor,
  inclusionProofOf,
  newestTreeHead,
  type TransparencyDeps,
} from '../../domain/transparency.use-case';
import { callerOf } from './caller';

/**
 * The transparency log's public side (docs/spec/contracts.md §16): tree heads and proofs for anyone (the gateway
 * forwards them without a key), an entry's content for its parties only.
 */
export function transparencyRoutes(router: Router, deps: TransparencyDeps & { db: Database }): void {
  router.get(ops.getTreeHead.path, async (_req, res) => {
    const head = await newestTreeHead(deps, deps.db);
    res.set('Cache-Control', 'public, max-age=5');
    respond(res, ops.getTreeHead, 200, { data: head });
  });

  router.get(ops.getInclusionProof.path, async (req, res) => {
    const query = parseQuery(inclusionProofQuerySchema, req);
    respond(res, ops.getInclusionProof, 200, { data: await inclusionProofOf(deps, deps.db, query) });
  });

  router.get(ops.getConsistencyProof.path, async (req, res) => {
    const query = parseQuery(consistencyProofQuerySchema, req);
    // A proof between two sizes never changes: cacheable for as long as anyone likes.
    const proof = await consistencyProofOf(deps, deps.db, query);
    res.set('Cache-Control', 'public, max-age=86400');
    respond(res, ops.getConsistencyProof, 200, { data: proof });
  });

  router.get(ops.getTransparencyEntry.path, async (req, res) => {
    const { index } = parseParams(logEntryIndexParamSchema, req);
    respond(res, ops.getTransparencyEntry, 200, {
      data: await entryFor(deps, deps.db, callerOf(req).platformId, index),
    });
  });
}
