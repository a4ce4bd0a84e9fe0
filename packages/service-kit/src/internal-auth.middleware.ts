import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError } from '@svc/errors';
import type { Clock } from '@svc/clock';
import { verifyInternalToken } from './internal-token';
import { attachClaims } from './request-context.middleware';

const BEARER = /^Bearer\s+(\S+)$/i;

/** Refuses any request without a valid internal JWT (401 UNAUTHORIZED) and puts its claims on the request. */
export function internalAuth(secret: string, clock: Clock): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const header = req.headers.authorization;
    const token = header === undefined ? undefined : BEARER.exec(header)?.[1];
    if (token === undefined) {
      next(new AppError('UNAUTHORIZED', 'Missing internal token'));
      return;
    }
    let claims;
    try {
      claims = verifyInternalToken(secret, token, clock.now());
    } catch (err) {
      next(err);
      return;
    }
    attachClaims(req, claims, next);
  };
}
