import { startBlackholeProxy } from './blackhole-proxy';

// The process of a blackhole proxy started by startBlackholeProxyProcess: it proxies to the target
// given as its arguments (host, port), tells its parent the port, and blackholes, heals or closes
// on the parent's word, answering each with `{ done: id }`. It leaves when the parent does.

export interface ProxyCommand {
  id: number;
  command: 'blackhole' | 'heal' | 'close';
}

async function main(): Promise<void> {
  const [host = '127.0.0.1', port = '0'] = process.argv.slice(2);
  const proxy = await startBlackholeProxy({ host, port: Number(port) });
  const send = (message: object) => process.send?.(message);
  process.on('message', (message: ProxyCommand) => {
    if (message.command === 'blackhole') proxy.blackhole();
    if (message.command === 'heal') proxy.heal();
    if (message.command !== 'close') {
      send({ done: message.id });
      return;
    }
    void proxy.close().finally(() => {
      send({ done: message.id });
      process.disconnect();
    });
  });
  // The suite that started it is gone (a crash, a kill): nothing is left listening.
  process.on('disconnect', () => process.exit(0));
  send({ port: proxy.port });
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
