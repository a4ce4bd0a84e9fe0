import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { freePort, listensOn } from '../../src';

// A test cluster's process is ready only when it answers /readyz from the port it holds itself
// (test-e2e/cluster-ports.test.ts). A child that lost its port to another process exits; asked
// about before its exit was reported, it must not count as the one listening.
let stranger: Server | undefined;

afterAll(async () => {
  await new Promise((resolve) => (stranger === undefined ? resolve(undefined) : stranger.close(resolve)));
});

describe('whether a process listens on a port', () => {
  it('when another process holds the port, then a process that is gone does not listen on it, and this one does', async () => {
    const port = await freePort();
    stranger = createServer((_req, res) => res.end('{}'));
    await new Promise<void>((resolve) => stranger!.listen(port, '127.0.0.1', () => resolve()));

    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    const pid = child.pid ?? -1;
    await new Promise((resolve) => child.once('exit', resolve));
    // Reaped: /proc/<pid> is gone, as for a child that exited between two looks.
    for (let i = 0; i < 50 && existsSync(`/proc/${pid}`); i += 1) await new Promise((r) => setTimeout(r, 20));

    expect(listensOn(pid, port)).toBe(false);
    expect(listensOn(process.pid, port)).toBe(true);
  });
});
