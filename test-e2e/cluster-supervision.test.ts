import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { sleep, startTestCluster, waitFor, type SupervisorEvent, type TestCluster } from '@svc/test-kit';
import { expectStatus, newPlatformKey, ROOT, sdkFor } from './helpers';

// `make up` supervises its processes: a crash (kill -9) is restarted with backoff and logged; a
// process stopped on purpose stays stopped. A restarted webhook dispatcher resumes the deliveries
// its killed predecessor had leased within 10 s.
let cluster: TestCluster;
const events: SupervisorEvent[] = [];

// The first delivery hangs (the dispatcher holds its endpoint's lease while it waits), later ones succeed.
const received: { id: string; at: number }[] = [];
let hangFirst = true;
const hanging: ServerResponse[] = [];
let receiver: Server;
let receiverUrl: string;

beforeAll(async () => {
  receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    received.push({ id: String(req.headers['webhook-id']), at: performance.now() });
    if (hangFirst) {
      hangFirst = false;
      hanging.push(res);
      return;
    }
    res.writeHead(200).end('ok');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  cluster = await startTestCluster({
    rootDir: ROOT,
    services: ['webhook-dispatcher'],
    env: { SVC_ALLOW_PRIVATE_FETCH: 'true' },
    onSupervisorEvent: (event) => events.push(event),
  });
}, 60_000);

afterAll(async () => {
  await cluster?.teardown();
  for (const res of hanging) res.destroy();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

const dispatcherUrl = () => cluster.processes.get('webhook-dispatcher')?.url ?? '';
const isReady = async (url: string) => {
  try {
    return (await fetch(`${url}/readyz`)).status === 200;
  } catch {
    return false;
  }
};

describe('a supervised cluster', () => {
  it('when the webhook dispatcher is killed with SIGKILL mid-delivery, then it comes back and resumes the leased delivery within 10 s', async () => {
    const svc = sdkFor(cluster.gatewayUrl, await newPlatformKey(cluster, 'Supervised'));
    const { data: endpoint } = await expectStatus(
      201,
      svc.POST('/v1/svc/webhooks', { body: { url: receiverUrl } }),
    );
    const sent = await svc.POST('/v1/svc/webhooks/test', { body: { endpointId: endpoint.id } });
    expect(sent.response.status).toBeLessThan(300);
    await waitFor(() => received.length === 1, { timeoutMs: 10_000, what: 'the first (hanging) delivery' });

    const before = cluster.processes.get('webhook-dispatcher')?.child;
    before?.kill('SIGKILL');
    const killedAt = performance.now();

    await waitFor(() => received.length >= 2, { timeoutMs: 15_000, what: 'the delivery resumed' });
    const resumedAfterMs = (received[1]?.at ?? Infinity) - killedAt;
    expect(received[1]?.id).toBe(received[0]?.id);
    expect(resumedAfterMs).toBeLessThan(10_000);

    const after = cluster.processes.get('webhook-dispatcher')?.child;
    expect(after?.pid).not.toBe(before?.pid);
    expect(await isReady(dispatcherUrl())).toBe(true);
    expect(cluster.restarts('webhook-dispatcher')).toBe(1);
    expect(events.find((e) => e.name === 'webhook-dispatcher' && e.kind === 'exited')?.signal).toBe(
      'SIGKILL',
    );
    expect(events.some((e) => e.name === 'webhook-dispatcher' && e.kind === 'restarted')).toBe(true);
    process.stdout.write(`dispatcher killed: delivery resumed ${Math.round(resumedAfterMs)} ms later\n`);
  }, 40_000);

  it('when a process is stopped on purpose, then the supervisor leaves it stopped until it is started again', async () => {
    const restarts = cluster.restarts('webhook-dispatcher');
    await cluster.stopProcess('webhook-dispatcher');
    await sleep(1500);
    expect(await isReady(dispatcherUrl())).toBe(false);
    expect(cluster.restarts('webhook-dispatcher')).toBe(restarts);
    await cluster.startProcess('webhook-dispatcher');
    expect(await isReady(dispatcherUrl())).toBe(true);
  }, 40_000);
});
