import { AppError } from '@svc/errors';
import { checkUrl, isFetchGuardError } from '@svc/fetch-guard';

export interface UrlPolicy {
  environment: 'sandbox' | 'production';
  allowPrivateFetch: boolean;
}

/** The fetch-guard settings for endpoint URLs: production is https only and never private. */
export function fetchPolicyOf(policy: UrlPolicy): { schemes: string[]; allowPrivate: boolean } {
  return policy.environment === 'production'
    ? { schemes: ['https'], allowPrivate: false }
    : { schemes: ['http', 'https'], allowPrivate: policy.allowPrivateFetch };
}

/**
 * Checks an endpoint URL at registration: format, scheme, and that it resolves to a public
 * address (unless private fetches are allowed). A refusal is a 400 VALIDATION_ERROR naming `url`.
 */
export async function validateEndpointUrl(url: string, policy: UrlPolicy): Promise<string> {
  try {
    const parsed = await checkUrl(url, fetchPolicyOf(policy));
    if (parsed.username !== '' || parsed.password !== '') {
      throw new AppError('VALIDATION_ERROR', 'Invalid url', {
        details: { fields: [{ field: 'url', message: 'credentials in the URL are not allowed' }] },
      });
    }
    return parsed.toString();
  } catch (err) {
    if (!isFetchGuardError(err)) throw err;
    const message =
      err.reason === 'scheme' && policy.environment === 'production'
        ? 'production endpoints must use https'
        : err.message;
    throw new AppError('VALIDATION_ERROR', 'Invalid url', {
      details: { fields: [{ field: 'url', message: `${err.reason}: ${message}` }] },
    });
  }
}
