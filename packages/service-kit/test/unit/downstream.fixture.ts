import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Downstream {
  url: string;
  /** Requests that reached the server. */
  hits: number;
  /** TCP connections the server accepted. */
  connections: number;
  /** Replaces how the server answers. */
  handle(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): void;
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 with a swappable handler, counting requests and connections. */
export async function startDownstream(
  initial: (req: IncomingMessage, res: ServerResponse, body: string) => void = (_req, res) => res.end(),
): Promise<Downstream> {
  let handler = initial;
  const server: Server = createServer((req, res) => {
    state.hits += 1;
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => handler(req, res, body));
  });
  server.on('connection', () => (state.connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const state: Downstream = {
    url: `http://127.0.0.1:${port}`,
    hits: 0,
    connections: 0,
    handle(next) {
      handler = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return state;
}

/** A port on 127.0.0.1 where nothing listens (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Calls `fn` expecting an AppError-like rejection; returns it for assertions. */
export async function rejectionOf(fn: () => Promise<unknown>): Promise<{
  code: string;
  status: number;
  message: string;
  headers: Record<string, string>;
}> {
  try {
    await fn();
  } catch (err) {
    return err as { code: string; status: number; message: string; headers: Record<string, string> };
  }
  throw new Error('expected a rejection, got a value');
}
