import type { ForgetFacesRequest } from '@svc/contracts/detection';
import type { RegistryContext } from './ports';

/**
 * After a claim (or some of its images) was deleted or the claim rejected, and before the answer:
 * detection forgets the faces now (docs/spec/contracts.md §15), so that no check answered after
 * this response matches them. The committed event does the same a moment later; should detection
 * not answer now, that event still removes them, and the failure is logged.
 */
export async function forgetFacesNow(ctx: RegistryContext, request: ForgetFacesRequest): Promise<void> {
  try {
    await ctx.faces.forgetFaces(request);
  } catch (err) {
    ctx.logger.warn(
      { err, claimId: request.claimId },
      'detection could not forget the faces before the answer; the event removes them',
    );
  }
}
