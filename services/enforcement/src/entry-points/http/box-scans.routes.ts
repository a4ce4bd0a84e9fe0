import type { Router } from 'express';
import { idParamSchema } from '@svc/contracts/common';
import { INTERNAL_BOX_SCAN_PATH } from '@svc/contracts/gateway';
import { parseParams } from '@svc/service-kit';
import { getBoxScanProgress } from '../../domain/box-scan-progress.use-case';
import type { EnforcementContext } from '../../domain/ports';
import { callerOf } from './caller';

/**
 * `GET /internal/boxes/:id/scan`: the box owner's view of its initial scan. Internal (the gateway's
 * dashboard surface calls it with the owner's internal token); not a public operation.
 */
export function boxScanRoutes(router: Router, ctx: EnforcementContext): void {
  router.get(INTERNAL_BOX_SCAN_PATH, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const scan = await getBoxScanProgress(ctx, callerOf(req), id);
    res.set('Cache-Control', 'no-store');
    // eslint-disable-next-line no-restricted-syntax -- internal, not a public operation: its caller parses the answer with the contract's schema
    res.json({
      data: {
        ...scan,
        startedAt: scan.startedAt?.toISOString() ?? null,
        completedAt: scan.completedAt?.toISOString() ?? null,
        nextAttemptAt: scan.nextAttemptAt?.toISOString() ?? null,
      },
    });
  });
}
