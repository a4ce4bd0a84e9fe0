import { INTERNAL_BOX_SCAN_PATH } from '@svc/contracts/gateway';
import { AppError } from '@svc/errors';
import type { Environment } from './api-key';
import { claimsOf, type DispatchResult } from './dispatch-request.use-case';
import type { ActiveSession } from './account-ports';
import type { UpstreamClient } from './upstream.client';

/**
 * The dashboard reads how far a box's initial scan has got (issue 20). Enforcement owns scans and
 * answers the box's owner only: the gateway asks it with the session's tenant as the caller, as a
 * key of that tenant would, so another account's box is enforcement's 404.
 */
export async function readBoxScanProgress(
  deps: { upstreams: UpstreamClient; environment: Environment },
  session: ActiveSession,
  input: { boxId: string; requestId: string },
): Promise<DispatchResult> {
  const platform = session.platform;
  if (platform === null) {
    throw new AppError('FORBIDDEN', 'The operator owns no boxes', { details: 'Sign in as a creator.' });
  }
  const claims = claimsOf({
    platformId: platform.id,
    keyId: session.account.id,
    environment: deps.environment,
    plan: platform.plan,
    name: platform.name,
    domain: platform.domain,
  });
  return deps.upstreams.forward('enforcement', claims, {
    method: 'GET',
    path: INTERNAL_BOX_SCAN_PATH.replace(':id', encodeURIComponent(input.boxId)),
    requestId: input.requestId,
  });
}
