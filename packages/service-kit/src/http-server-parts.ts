import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type express from 'express';
import type { Logger } from '@svc/logger';

// The HTTP server's parts of createService (create-service.ts): the JSON limit in bytes, express's
// https test for the fast path, the envelope of a request node's parser refuses, and the drain.

// While draining, idle keep-alive sockets left by finished requests are closed at this pace.
const IDLE_SWEEP_MS = 50;

/** "1mb" → 1,048,576 (units of 1024, as body-parser reads its limit). */
export function bytesOf(limit: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(limit);
  if (match === null) throw new Error(`jsonLimit "${limit}" is not a size such as 1mb`);
  const power = { b: 0, kb: 1, mb: 2, gb: 3 }[(match[2] ?? 'b').toLowerCase() as 'b' | 'kb' | 'mb' | 'gb'];
  return Math.floor(Number(match[1]) * 1024 ** power);
}

/**
 * Whether a request came over https, as express's `req.secure` says: the socket's TLS, or the first
 * X-Forwarded-Proto when the socket's peer is a proxy `trust proxy` names.
 */
export function secureBy(app: express.Express): (req: IncomingMessage) => boolean {
  const trust = app.get('trust proxy fn') as (address: string | undefined, hop: number) => boolean;
  return (req) => {
    const socketSecure = (req.socket as { encrypted?: boolean }).encrypted === true;
    if (!trust(req.socket.remoteAddress, 0)) return socketSecure;
    const header = req.headers['x-forwarded-proto'];
    const forwarded = typeof header === 'string' ? header : undefined;
    if (forwarded === undefined) return socketSecure;
    const comma = forwarded.indexOf(',');
    return (comma === -1 ? forwarded : forwarded.slice(0, comma)).trim() === 'https';
  };
}

/**
 * A request node's HTTP parser refuses (a NUL in a header, a bad request line, headers over the
 * limit) still gets the error envelope, where node's default answer is a bare 400.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const body = JSON.stringify({
    error: {
      code: 'VALIDATION_ERROR',
      message: tooLarge ? 'Request headers are too large' : 'Malformed HTTP request',
    },
  });
  socket.end(
    `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export function closeMetricsServer(server: Server | undefined): Promise<void> {
  if (server === undefined) return Promise.resolve();
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** Stops accepting, lets in-flight requests finish until the deadline, then closes whatever is left. */
export function drain(server: Server, timeoutMs: number, logger: Logger, name: string): Promise<void> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      clearInterval(sweep);
      clearTimeout(deadline);
      resolve();
    };
    // The callback runs once every connection has ended, which is the drained state.
    server.close(() => {
      logger.info(`${name} stopped`);
      finish();
    });
    server.closeIdleConnections();
    // A request in flight keeps its keep-alive socket open once it is answered; sweep those too.
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const deadline = setTimeout(() => {
      logger.warn({ timeoutMs }, `${name} did not drain in time; closing the remaining connections`);
      server.closeAllConnections();
      finish();
    }, timeoutMs);
  });
}
