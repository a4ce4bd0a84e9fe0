import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import { ZodError } from 'zod';
import { AppError, isAppError, unavailableFrom, validationErrorFrom } from '@svc/errors';
import type { Logger } from '@svc/logger';
import { describeRequest, requestIdOf } from './request-context.middleware';

// The database usually comes back within a second or two (a restart, a failover).
const DEFAULT_RETRY_AFTER_SECONDS = 1;

/** Answers 404 NOT_FOUND for any request no route took. */
export function notFound(): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    next(new AppError('NOT_FOUND', `No route for ${req.method} ${req.path}`));
  };
}

/** What an error answers: status, headers, the JSON body, and the closed code it names. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  code: string;
}

/**
 * The one place an error becomes a response: AppError as is, body-parser and zod failures as
 * VALIDATION_ERROR, a dependency that is down (database connection lost or refused, timeouts) as
 * 503 SERVICE_UNAVAILABLE with Retry-After, anything else 500 INTERNAL without a stack (logged).
 * Shared by the express error handler and the gateway's public path, which answers without express.
 */
export function errorAnswerOf(
  err: unknown,
  logger: Logger,
  request: { method: string; url: string; requestId: string | undefined },
  tooLargeMessage: string,
): ErrorAnswer {
  const appError = toAppError(err, tooLargeMessage);
  if (appError === undefined || appError.code === 'INTERNAL') {
    logger.error({ err, method: request.method, url: request.url }, 'Unexpected error');
    const body = {
      error: { code: 'INTERNAL', message: 'Internal error', details: { requestId: request.requestId } },
    };
    return { status: 500, headers: {}, body, code: 'INTERNAL' };
  }
  if (appError.status >= 500) {
    logger.warn({ err: appError, method: request.method, url: request.url }, appError.message);
  } else {
    logger.debug({ code: appError.code, method: request.method, url: request.url }, appError.message);
  }
  // A 503 always says when to come back (docs/spec/contracts.md §2), whoever raised it.
  const headers =
    appError.status === 503 && !hasHeader(appError.headers, 'retry-after')
      ? { ...appError.headers, 'Retry-After': String(DEFAULT_RETRY_AFTER_SECONDS) }
      : appError.headers;
  return { status: appError.status, headers, body: appError.toBody(), code: appError.code };
}

/** The message of a 413 for a body over `jsonLimit` ("1mb": "Request body is larger than the 1 MB limit"). */
export function tooLargeMessageOf(jsonLimit: string): string {
  return `Request body is larger than the ${describeLimit(jsonLimit)} limit`;
}

/** The express error handler: every error of a route answered through errorAnswerOf. */
export function errorHandler(logger: Logger, jsonLimit: string): ErrorRequestHandler {
  const tooLargeMessage = tooLargeMessageOf(jsonLimit);

  return (err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) {
      // Too late to send an error body; express's default handler destroys the socket.
      logger.error({ err }, 'Error after the response had started');
      next(err);
      return;
    }
    const answer = errorAnswerOf(
      err,
      logger,
      { method: req.method, url: req.originalUrl, requestId: requestIdOf(req) },
      tooLargeMessage,
    );
    describeRequest(req, { errorCode: answer.code });
    res.status(answer.status).set(answer.headers).json(answer.body);
  };
}

/** The AppError an error stands for, or undefined when it is unexpected. */
function toAppError(err: unknown, tooLargeMessage: string): AppError | undefined {
  const unavailable = unavailableFrom(err, DEFAULT_RETRY_AFTER_SECONDS);
  if (unavailable !== undefined) return unavailable;
  if (isAppError(err)) return err;
  if (err instanceof ZodError) return validationErrorFrom(err, 'body');
  // express could not percent-decode a path parameter ("Failed to decode param").
  if (err instanceof URIError) {
    return new AppError('VALIDATION_ERROR', 'Invalid path: malformed percent-encoding', {
      cause: err,
      details: { fields: [{ field: 'path', message: 'malformed percent-encoding' }] },
    });
  }
  if (isBodyParserError(err)) {
    if (err.type === 'entity.too.large') {
      return new AppError('VALIDATION_ERROR', tooLargeMessage, { status: 413, cause: err });
    }
    if (err.type === 'entity.parse.failed') {
      return new AppError('VALIDATION_ERROR', 'Malformed JSON body', { cause: err });
    }
    // Compressed or non-UTF-8 bodies: the media type is not one the service reads.
    if (err.type === 'encoding.unsupported' || err.type === 'charset.unsupported') {
      return new AppError('VALIDATION_ERROR', err.message, {
        status: 415,
        cause: err,
        details: { fields: [{ field: '(body)', message: err.message }] },
      });
    }
    if (err.type === 'entity.too.deep') {
      return new AppError('VALIDATION_ERROR', err.message, {
        cause: err,
        details: { fields: [{ field: '(body)', message: err.message }] },
      });
    }
    // Unsupported charset or encoding, a body cut short: the client's fault, described by body-parser
    // in terms safe to show (it marks them `expose`).
    if (err.status < 500 && err.expose === true) {
      return new AppError('VALIDATION_ERROR', err.message, { cause: err });
    }
  }
  return undefined;
}

interface BodyParserError extends Error {
  type: string;
  status: number;
  expose?: boolean;
}

function isBodyParserError(err: unknown): err is BodyParserError {
  return (
    err instanceof Error &&
    'type' in err &&
    typeof err.type === 'string' &&
    'status' in err &&
    typeof err.status === 'number'
  );
}

/** "1mb" → "1 MB", "512kb" → "512 KB"; anything else as written. */
function describeLimit(limit: string): string {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)\s*$/i.exec(limit);
  if (match === null) return limit;
  const [, amount, unit] = match;
  return unit?.toLowerCase() === 'b' ? `${amount} bytes` : `${amount} ${unit?.toUpperCase()}`;
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}
