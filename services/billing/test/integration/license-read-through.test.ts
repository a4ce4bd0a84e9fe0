import { INTERNAL_LICENSE_PATH, licenseRevoked } from '@svc/contracts/licensing';
import { newId } from '@svc/ids';
import { startFakeSnapshotOwner, type FakeSnapshotOwner } from '@svc/test-kit';
import {
  JWT_SECRET,
  licenseData,
  startBillingHarness,
  type BillingHarness,
  type Client,
} from '../fixtures/billing-harness';

// ADR 0010: a usage report on a license licensing activated a moment ago, before billing's
// license projection has heard of it, asks licensing instead of answering 404.

describe('a usage report on a license billing has not projected yet', () => {
  let licensing: FakeSnapshotOwner;
  let h: BillingHarness;
  let licensee: Client;

  beforeAll(async () => {
    licensing = await startFakeSnapshotOwner(JWT_SECRET, INTERNAL_LICENSE_PATH);
    h = await startBillingHarness({ licensingUrl: licensing.url });
    licensee = h.platform();
  });

  afterAll(async () => {
    await h.stop();
    await licensing.stop();
  });

  const body = {
    period: '2026-10',
    metrics: { subscribers: 10 },
    revenue: { subscriptions: 100 },
  };

  const licensingKnows = (version: number) => {
    const data = licenseData(licensee.platformId, h.platform().platformId);
    licensing.entities.set(data.licenseId, { version, entity: { ...data, endedAt: null } });
    return data;
  };

  it('when licensing activated the license a moment ago, then the report is accepted at once with the license terms', async () => {
    const license = licensingKnows(1);
    const reply = await licensee.call('POST', `/v1/svc/licenses/${license.licenseId}/usage`, body);
    expect(reply.status).toBe(201);
    expect(reply.body.data).toMatchObject({
      licenseId: license.licenseId,
      royaltyRate: 0.15,
      royaltyDue: 15,
    });
    expect(licensing.callers).toContain('billing');
  });

  it('when the license was projected by the read-through, then an event of a later version still applies to it', async () => {
    const license = licensingKnows(1);
    expect((await licensee.call('POST', `/v1/svc/licenses/${license.licenseId}/usage`, body)).status).toBe(
      201,
    );
    const revoked = licenseRevoked.create(
      { ...license, status: 'revoked', reason: 'terms broken' },
      { occurredAt: h.clock.now(), platformId: licensee.platformId },
    );
    await h.publish({ ...revoked, entity: { id: license.licenseId, version: 2 } });
    const { rows } = await h.running.db.query('SELECT status, version FROM licenses WHERE id = $1', [
      license.licenseId,
    ]);
    expect(rows.map((row) => [row.status, Number(row.version)])).toEqual([['revoked', 2]]);
  });

  it("when licensing says the license does not exist, or it is another platform's, then 404", async () => {
    const missing = await licensee.call('POST', `/v1/svc/licenses/${newId('lic')}/usage`, body);
    expect(missing.status).toBe(404);
    const license = licensingKnows(1);
    const stranger = await h.platform().call('POST', `/v1/svc/licenses/${license.licenseId}/usage`, body);
    expect(stranger.status).toBe(404);
  });

  it('when the report fails after the read-through stored the license, then a retry with the same Idempotency-Key carries it out (the key did not commit with the license)', async () => {
    const license = licensingKnows(1);
    const key = `read-through-${newId('usage')}`;
    const path = `/v1/svc/licenses/${license.licenseId}/usage`;
    // The database goes away after the license was projected, before the report's own write: the
    // same SQLSTATE a PostgreSQL restart sends (57P01), raised by a trigger on that write.
    await h.running.db.exec(`
      CREATE FUNCTION refuse_reports() RETURNS trigger AS $$
      BEGIN RAISE EXCEPTION 'terminating connection due to administrator command' USING ERRCODE = '57P01'; END
      $$ LANGUAGE plpgsql;
      CREATE TRIGGER refuse_reports BEFORE INSERT ON usage_reports FOR EACH ROW EXECUTE FUNCTION refuse_reports();
    `);
    let failed;
    try {
      failed = await licensee.call('POST', path, body, { 'idempotency-key': key });
    } finally {
      await h.running.db.exec(
        'DROP TRIGGER refuse_reports ON usage_reports; DROP FUNCTION refuse_reports();',
      );
    }
    expect(failed.status).toBe(503);

    const retried = await licensee.call('POST', path, body, { 'idempotency-key': key });
    expect(retried.status).toBe(201);
    const replayed = await licensee.call('POST', path, body, { 'idempotency-key': key });
    expect(replayed.status).toBe(201);
    expect(replayed.body.data).toEqual(retried.body.data);
    const { rows } = await h.running.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM usage_reports WHERE license_id = $1',
      [license.licenseId],
    );
    expect(rows[0]?.n).toBe(1);
  });

  it('when licensing cannot be reached, then 503 SERVICE_UNAVAILABLE, never 404', async () => {
    const license = licensingKnows(1);
    await licensing.stop();
    const reply = await licensee.call('POST', `/v1/svc/licenses/${license.licenseId}/usage`, body);
    expect(reply.status).toBe(503);
    expect(reply.body.error.code).toBe('SERVICE_UNAVAILABLE');
  });
});
