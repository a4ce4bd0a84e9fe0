import { Agent, get } from 'node:http';
import request from 'supertest';
import { createService, type Service } from '../../src';
import { capturingLogger, SECRET } from './service.fixture';

interface Answer {
  status: number;
  body: string;
  connection: string | undefined;
}

function fetchText(url: string, agent?: Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = get(url, agent === undefined ? {} : { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

function slowService(slowMs: number, events: string[] = []): { svc: Service; started: Promise<void> } {
  let markStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const svc = createService({
    name: 'stop-test',
    logger: capturingLogger().logger,
    internalJwtSecret: SECRET,
    requireInternalAuth: false,
    routes: (router) => {
      router.get('/slow', async (_req, res) => {
        markStarted();
        // unref: the force-close test abandons this wait; it must not keep jest alive.
        await new Promise((resolve) => setTimeout(resolve, slowMs).unref());
        res.json({ done: true });
        events.push('slow answered');
      });
      router.get('/fast', (_req, res) => {
        res.json({ fast: true });
      });
    },
  });
  return { svc, started };
}

describe('createService: graceful stop', () => {
  it('when stop is called during a slow request, then the request completes, new connections are refused, and stop resolves after it', async () => {
    const events: string[] = [];
    const { svc, started } = slowService(300, events);
    const { url } = await svc.listen(0, '127.0.0.1');

    const slow = fetchText(`${url}/slow`);
    await started;
    const stopping = svc.stop(5000).then(() => events.push('stopped'));
    const refused = await fetchText(`${url}/fast`).then(
      () => 'accepted',
      (err: NodeJS.ErrnoException) => err.code,
    );

    expect(refused).toBe('ECONNREFUSED');
    expect(await slow).toMatchObject({ status: 200, body: '{"done":true}' });
    await stopping;
    expect(events).toEqual(['slow answered', 'stopped']);
  });

  it('when stop has begun, then /readyz answers 503', async () => {
    const { svc } = slowService(0);
    await svc.listen(0, '127.0.0.1');
    await svc.stop(1000);

    const res = await request(svc.app).get('/readyz');

    expect(res.status).toBe(503);
  });

  it('when a client keeps an idle keep-alive connection, then stop does not wait for it', async () => {
    const { svc } = slowService(0);
    const { url } = await svc.listen(0, '127.0.0.1');
    const agent = new Agent({ keepAlive: true });
    await fetchText(`${url}/fast`, agent);

    const before = performance.now();
    await svc.stop(5000);
    const elapsed = performance.now() - before;
    agent.destroy();

    expect(elapsed).toBeLessThan(500);
  });

  it('when an in-flight request outlives the timeout, then stop force-closes it at the deadline', async () => {
    const { svc, started } = slowService(10_000);
    const { url } = await svc.listen(0, '127.0.0.1');
    const hanging = fetchText(`${url}/slow`).then(
      () => 'answered',
      (err: NodeJS.ErrnoException) => err.code,
    );
    await started;

    const before = performance.now();
    await svc.stop(200);
    const elapsed = performance.now() - before;

    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(1000);
    expect(await hanging).toBe('ECONNRESET');
  });

  it('when stop is called twice, then both calls share the same drain', async () => {
    const { svc } = slowService(0);
    await svc.listen(0, '127.0.0.1');

    const first = svc.stop();
    const second = svc.stop();

    expect(second).toBe(first);
    await first;
  });
});
