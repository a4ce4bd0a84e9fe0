import { createServer, connect, type Server, type Socket } from 'node:net';
import { startBlackholeProxyProcess, type BlackholeProxyProcess } from '@svc/test-kit';

// The fault suite cuts a service's database and broker links with this proxy, run in a process of
// its own: what flows, what stops flowing and what flows again must be what the suite asks for.

let echo: Server;
let proxy: BlackholeProxyProcess;
const sockets: Socket[] = [];

beforeAll(async () => {
  echo = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  const address = echo.address();
  proxy = await startBlackholeProxyProcess({
    host: '127.0.0.1',
    port: typeof address === 'object' && address !== null ? address.port : 0,
  });
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await proxy?.close();
  await new Promise<void>((resolve) => echo.close(() => resolve()));
});

async function opened(): Promise<Socket> {
  const socket = connect(proxy.port, '127.0.0.1');
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  return socket;
}

/** What comes back within `ms` of writing `text`. */
async function echoed(socket: Socket, text: string, ms = 300): Promise<string> {
  let heard = '';
  const onData = (chunk: Buffer) => (heard += chunk.toString('utf8'));
  socket.on('data', onData);
  socket.write(text);
  await new Promise((resolve) => setTimeout(resolve, ms));
  socket.off('data', onData);
  return heard;
}

describe('a blackhole proxy in its own process', () => {
  it('when a link is blackholed, then nothing flows on it and it is not closed; once healed, new links flow and the cut one stays dead', async () => {
    const before = await opened();
    expect(await echoed(before, 'ping')).toBe('ping');

    await proxy.blackhole();
    let closed = false;
    before.once('close', () => (closed = true));
    expect(await echoed(before, 'lost')).toBe('');
    const during = await opened();
    expect(await echoed(during, 'lost too')).toBe('');
    expect(closed).toBe(false);

    await proxy.heal();
    const after = await opened();
    expect(await echoed(after, 'pong')).toBe('pong');
    expect(await echoed(before, 'still cut')).toBe('');
  });
});
