import net from 'node:net';

/**
 * A loopback TCP proxy that can stop forwarding without closing anything, as a network partition
 * does: while hung, both sides' bytes (and closes) wait in the proxy; `heal` delivers them.
 */
export class HangingTcpProxy {
  private hung = false;
  private readonly held: Array<() => void> = [];
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly server: net.Server,
    /** The port the proxy listens on (127.0.0.1). */
    readonly port: number,
  ) {}

  /** Listens on a free loopback port and forwards each connection to `target`. */
  static async start(target: { host: string; port: number }): Promise<HangingTcpProxy> {
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    const proxy = new HangingTcpProxy(server, (server.address() as net.AddressInfo).port);
    server.on('connection', (client: net.Socket) => proxy.forward(client, target));
    return proxy;
  }

  /** From now on nothing goes through, and nothing is closed. */
  hang(): void {
    this.hung = true;
  }

  /** Delivers what was held, in order, and forwards again. */
  heal(): void {
    this.hung = false;
    for (const deliver of this.held.splice(0)) deliver();
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private forward(client: net.Socket, target: { host: string; port: number }): void {
    const upstream = net.connect(target.port, target.host);
    upstream.setNoDelay(true);
    client.setNoDelay(true);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.sockets.add(from);
      from.on('data', (chunk: Buffer) => this.pass(() => to.write(chunk)));
      from.on('error', () => undefined);
      from.on('close', () => {
        this.sockets.delete(from);
        this.pass(() => to.destroy());
      });
    }
  }

  private pass(deliver: () => void): void {
    if (this.hung) this.held.push(deliver);
    else deliver();
  }
}
