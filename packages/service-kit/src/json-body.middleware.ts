import type { IncomingMessage } from 'node:http';
import express, { type Request, type RequestHandler } from 'express';
import { AppError } from '@svc/errors';

/** The deepest nesting of arrays and objects a JSON body may have (README, Input limits). */
export const MAX_JSON_DEPTH = 64;

/** Methods whose body, if any, is not read. */
export const BODYLESS_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

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

/** Whether a request carries a body (a Transfer-Encoding, or a Content-Length above 0). */
export function hasBody(req: IncomingMessage): boolean {
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

/** The media type of a Content-Type (`application/json; charset=utf-8` → `application/json`), lower case. */
function mediaTypeOf(contentType: string): string {
  const end = contentType.indexOf(';');
  return (end === -1 ? contentType : contentType.slice(0, end)).trim().toLowerCase();
}

/**
 * 415 for a body the service cannot read as JSON: another media type, a charset other than UTF-8,
 * or any Content-Encoding; undefined for a request without a body or with a JSON one. The one
 * policy of the express services and of the gateway's public path.
 */
export function bodyPolicyErrorOf(req: IncomingMessage): AppError | undefined {
  if (BODYLESS_METHODS.has(req.method ?? '') || !hasBody(req)) return undefined;
  // Compressed bodies are refused rather than inflated: one encoding to get right, no zip bombs.
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== '') {
    return unsupported(`Content-Encoding ${encoding} is not supported: send the JSON body uncompressed`);
  }
  const contentType = req.headers['content-type'];
  if (contentType === undefined || mediaTypeOf(contentType) !== 'application/json') {
    return unsupported('The body must be JSON: send Content-Type: application/json');
  }
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(contentType)?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    return unsupported(`The body must be UTF-8 JSON, not ${charset}`);
  }
  return undefined;
}

function bodyPolicy(): RequestHandler {
  return (req: Request, _res, next) => {
    const refused = bodyPolicyErrorOf(req);
    if (refused !== undefined) throw refused;
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

// What body-parser's strict JSON accepts at the top: an object or an array, after white space.
const STRICT_JSON_START = /^[ \t\n\r]*[{[]/;

/**
 * Refuses bytes that are not a JSON body every service would accept (a body nested too deep, not
 * an object or an array, malformed), as body-parser and the depth check refuse them; the bytes
 * themselves are left as they are (the gateway forwards them).
 */
export function checkJsonBody(raw: Buffer): void {
  checkJsonDepth(raw);
  const text = raw.toString('utf8');
  let valid = STRICT_JSON_START.test(text);
  if (valid) {
    try {
      JSON.parse(text);
    } catch {
      valid = false;
    }
  }
  if (!valid) throw new BodyPolicyError('Malformed JSON body', 'entity.parse.failed', 400);
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
