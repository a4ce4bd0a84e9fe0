import { createLogger, type Logger } from '@svc/logger';
import { signInternalToken, type InternalClaims } from '../../src';

export const SECRET = 'test-secret-of-a-reasonable-length-0123456789';

export const CLAIMS: InternalClaims = {
  platformId: 'plat_0123456789abcdefABCDEF',
  environment: 'sandbox',
  keyId: 'key_0123456789abcdefABCDEF',
  plan: 'standard',
};

/** `Authorization` header value carrying a fresh internal token. */
export function bearer(claims: InternalClaims = CLAIMS, secret = SECRET): string {
  return `Bearer ${signInternalToken(secret, claims)}`;
}

export interface LogLine {
  level: number;
  args: unknown[];
}

/** A logger that writes nothing and keeps every call for assertions. */
export function capturingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = createLogger('service-kit-test', {
    level: 'debug',
    hooks: {
      logMethod(args, _method, level) {
        lines.push({ level, args });
      },
    },
  });
  return { logger, lines };
}
