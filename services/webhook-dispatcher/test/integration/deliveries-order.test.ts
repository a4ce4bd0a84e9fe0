import type { EventEnvelope } from '@svc/contracts/common';
import { assertOrderIndependent, violationHistories } from '@svc/test-kit';
import { startHarness, startReceiver, type Harness } from '../fixtures/dispatcher-harness';

// ADR 0010: the webhook dispatcher records one delivery per public event and endpoint, whatever
// order and however many times the internal events arrive.

let h: Harness;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const endpoints = new Map<string, string>();

beforeAll(async () => {
  h = await startHarness();
  receiver = await startReceiver();
});
afterAll(async () => {
  await h.stop();
  await receiver.close();
});

/** The platform's endpoint, registered the first time one of its events is delivered. */
async function endpointOf(platformId: string): Promise<string> {
  const known = endpoints.get(platformId);
  if (known !== undefined) return known;
  const created = await h.call(platformId, 'POST', '/v1/svc/webhooks', { url: receiver.url });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  endpoints.set(platformId, created.body.data.id);
  return created.body.data.id;
}

describe('deliveries under any order of delivery of internal events', () => {
  it("when a violation's grace-period events arrive shuffled and twice, then each public event gets one delivery per endpoint", async () => {
    await assertOrderIndependent({
      history: violationHistories('box_webhookOrder000000'),
      deliver: async (envelope: EventEnvelope) => {
        await endpointOf(String(envelope.platformId));
        await h.bus.publish(envelope);
      },
      state: async (history) => {
        const endpointId = await endpointOf(String(history[0]?.platformId));
        const { rows } = await h.dispatcher.db.query<{ event_type: string; deliveries: number }>(
          `SELECT event_type, count(*)::int AS deliveries FROM webhook_deliveries
           WHERE endpoint_id = $1 GROUP BY event_type ORDER BY event_type`,
          [endpointId],
        );
        return rows;
      },
      numRuns: 15,
    });
  });
});
