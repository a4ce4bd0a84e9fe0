import type { IncomingMessage } from 'node:http';
import express, { type Request, type RequestHandler } from 'express';
import { AppError } from '@svc/errors';

/** The deepest nesting of arrays and objects a JSON body may have (README, Input limits). */
export const MAX_JSON_DEPTH = 64;

const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A body-parser-shaped error: the error middleware maps it by `type`. */
class BodyPolicyError extends Error {
  readonly expose = true;
  constructor(
    message: string,
    readonly type: string,
    readonly status: number,
  ) {
    super(message);
  }
}

function hasBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = Number(req.headers['content-length'] ?? '0');
  return !Number.isFinite(length) || length > 0;
}

function unsupported(message: string): AppError {
  return new AppError('VALIDATION_ERROR', message, {
    status: 415,
    details: { fields: [{ field: '(body)', message }] },
  });
}

/** 415 for a body the service cannot read as JSON: another media type, a charset other than UTF-8, or any Content-Encoding. */
function bodyPolicy(): RequestHandler {
  return (req: Request, _res, next) => {
    if (BODYLESS_METHODS.has(req.method) || !hasBody(req)) {
      next();
      return;
    }
    // Compressed bodies are refused rather than inflated: one encoding to get right, no zip bombs.
    const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    if (encoding !== 'identity' && encoding !== '') {
      throw unsupported(`Content-Encoding ${encoding} is not supported: send the JSON body uncompressed`);
    }
    if (req.is('application/json') === false || req.headers['content-type'] === undefined) {
      throw unsupported('The body must be JSON: send Content-Type: application/json');
    }
    const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(req.headers['content-type'])?.[1]?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      throw unsupported(`The body must be UTF-8 JSON, not ${charset}`);
    }
    next();
  };
}

/**
 * Refuses a body nested deeper than `maxDepth` from its raw bytes, before it is parsed: a deep
 * body would overflow the stack of whatever walks it later (JSON.stringify, a validator).
 */
export function checkJsonDepth(raw: Buffer, maxDepth = MAX_JSON_DEPTH): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i];
    if (inString) {
      if (byte === 0x5c)
        i++; // backslash: skip the escaped byte
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) {
      inString = true;
    } else if (byte === 0x5b || byte === 0x7b) {
      depth++;
      if (depth > maxDepth) {
        throw new BodyPolicyError(
          `The body is nested deeper than ${maxDepth} levels`,
          'entity.too.deep',
          400,
        );
      }
    } else if (byte === 0x5d || byte === 0x7d) {
      depth--;
    }
  }
}

/**
 * The one JSON body policy of every service and the gateway: JSON only (415 otherwise), no
 * Content-Encoding (415), at most `limit` (413), at most 64 levels deep (400), malformed JSON 400.
 */
export function jsonBody(limit: string): RequestHandler[] {
  return [
    bodyPolicy(),
    express.json({
      limit,
      inflate: false,
      verify: (_req, _res, raw) => checkJsonDepth(raw),
    }),
  ];
}
