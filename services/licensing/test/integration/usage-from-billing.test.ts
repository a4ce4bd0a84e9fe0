import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isServiceCaller, verifyInternalToken } from '@svc/service-kit';
import { JWT_SECRET, startLicensingHarness, type LicensingHarness } from '../fixtures/licensing-harness';

// docs/adr/0016: billing owns usage; a license's detail reads the current period's figures from
// billing's internal route, with licensing's own internal token, behind a timeout and a breaker.

interface FakeBillingServer {
  url: string;
  /** What billing answers next: a status and body, or 'hang' (never answers). */
  answer: { status: number; body: unknown } | 'hang';
  asked: { path: string; service: boolean }[];
  stop(): Promise<void>;
}

async function startFakeBillingServer(): Promise<FakeBillingServer> {
  const fake: FakeBillingServer = {
    url: '',
    answer: { status: 500, body: {} },
    asked: [],
    stop: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    let service = false;
    try {
      service = isServiceCaller(
        verifyInternalToken(JWT_SECRET, (req.headers.authorization ?? '').replace(/^Bearer /, '')),
      );
    } catch {
      service = false;
    }
    fake.asked.push({ path: req.url ?? '', service });
    if (fake.answer === 'hang') return;
    res.writeHead(fake.answer.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(fake.answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}

describe("a license's usage, read from billing over HTTP", () => {
  let billing: FakeBillingServer;
  let h: LicensingHarness;

  beforeAll(async () => {
    billing = await startFakeBillingServer();
    h = await startLicensingHarness({ billingUrl: billing.url });
  });

  afterAll(async () => {
    await h.stop();
    await billing.stop();
  });

  it('when billing answers, then the detail shows its figures, asked for the current period with a service token', async () => {
    billing.answer = {
      status: 200,
      body: {
        data: {
          licenseId: 'x',
          period: '2026-11',
          version: 0,
          subscribers: 0,
          messages: 0,
          revenueCents: 0,
          royaltyDueCents: 0,
        },
      },
    };
    const client = h.platform();
    const { license } = await h.activeLicense(client);
    billing.answer = {
      status: 200,
      body: {
        data: {
          licenseId: license.id,
          period: '2026-11',
          version: 2,
          subscribers: 12,
          messages: 340,
          revenueCents: 3_333,
          royaltyDueCents: 500,
        },
      },
    };
    const res = await client.call('GET', `/v1/svc/licenses/${license.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data.usage).toEqual({
      currentPeriod: '2026-11',
      subscribers: 12,
      messages: 340,
      revenue: 33.33,
      royaltyDue: 5,
    });
    expect(billing.asked.at(-1)).toEqual({
      path: `/internal/licenses/${license.id}/usage/2026-11`,
      service: true,
    });
  });

  it('when billing answers an error or a body that is not usage, then the detail is a 503, never zeros', async () => {
    billing.answer = {
      status: 200,
      body: {
        data: {
          licenseId: 'x',
          period: '2026-11',
          version: 0,
          subscribers: 0,
          messages: 0,
          revenueCents: 0,
          royaltyDueCents: 0,
        },
      },
    };
    const client = h.platform();
    const { license } = await h.activeLicense(client);
    for (const answer of [
      { status: 500, body: { error: { code: 'INTERNAL' } } },
      { status: 200, body: { data: { revenue: 'lots' } } },
      { status: 404, body: {} },
    ]) {
      billing.answer = answer;
      const res = await client.call('GET', `/v1/svc/licenses/${license.id}`);
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    }
  });
});
