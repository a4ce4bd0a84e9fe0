import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy of a test's own in front of a server (PostgreSQL, RabbitMQ, a service) that can
 * blackhole the link: bytes stop flowing both ways and nothing is closed, as in a partition or a
 * dead NAT entry, where a peer learns nothing until a timeout of its own fires.
 */
export interface BlackholeProxy {
  /** Where clients connect instead of the target. */
  port: number;
  /** From now on, nothing flows on any connection, old or new; no connection is closed. */
  blackhole(): void;
  /** New connections flow again; the ones that were blackholed stay dead, as after a partition. */
  heal(): void;
  close(): Promise<void>;
}

export async function startBlackholeProxy(target: { host: string; port: number }): Promise<BlackholeProxy> {
  let holed = false;
  // Each pair of sockets, with whether its link is dead.
  const links = new Set<{ client: Socket; server: Socket; dead: boolean }>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    const link = { client, server: upstream, dead: holed };
    links.add(link);
    const forward = (to: Socket) => (chunk: Buffer) => {
      if (!link.dead) to.write(chunk);
    };
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
    const end = () => {
      links.delete(link);
      client.destroy();
      upstream.destroy();
    };
    // A dead link hears nothing of the other side's close either.
    client.on('close', () => {
      if (!link.dead) end();
    });
    upstream.on('close', () => {
      if (!link.dead) end();
    });
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    port,
    blackhole: () => {
      holed = true;
      for (const link of links) link.dead = true;
    },
    heal: () => {
      holed = false;
    },
    close: async () => {
      for (const link of links) {
        link.client.destroy();
        link.server.destroy();
      }
      links.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
