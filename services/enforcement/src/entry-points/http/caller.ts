import type { Request } from 'express';
import { authOf } from '@svc/service-kit';
import type { Caller } from '../../domain/ports';

/** The caller as the domain knows it, from the gateway's internal token. */
export function callerOf(req: Request): Caller {
  const claims = authOf(req);
  return {
    platformId: claims.platformId,
    environment: claims.environment,
    platformDomain: claims.platformDomain ?? null,
    platformName: claims.platformName ?? null,
    role: claims.role ?? 'platform',
  };
}
