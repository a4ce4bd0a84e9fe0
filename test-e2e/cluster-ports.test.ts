import { createServer, type Server } from 'node:http';
import { freePort, startTestCluster } from '@svc/test-kit';
import { ROOT } from './helpers';

// A test cluster must talk to its own processes. Once, in CI, the gateway's port was also given
// to billing: billing answered the gateway's readiness check, the gateway could not listen, and
// the test's admin calls reached billing ("Invalid internal token"). A process is ready only when
// it answers /readyz from the port it holds itself, and no two ports of a run are the same.
let stranger: Server | undefined;

afterAll(async () => {
  await new Promise((resolve) => (stranger === undefined ? resolve(undefined) : stranger.close(resolve)));
});

describe('test clusters talk to their own processes', () => {
  it('when another process already answers /readyz on a service port, then the cluster refuses to start instead of using it', async () => {
    const port = await freePort();
    stranger = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
    );
    await new Promise<void>((resolve) => stranger!.listen(port, '127.0.0.1', () => resolve()));

    await expect(
      startTestCluster({ rootDir: ROOT, services: ['registry'], ports: { registry: port } }),
    ).rejects.toThrow(/exited|not ready/);
  }, 60_000);

  it('when many ports are asked for, then no two are the same', async () => {
    const ports = [];
    for (let i = 0; i < 300; i += 1) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
  });
});
