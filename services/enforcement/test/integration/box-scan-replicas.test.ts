import { createDatabase, type Database } from '@svc/storage';
import { waitFor } from '@svc/test-kit';
import type { RunningEnforcement } from '../../src';
import {
  startEnforcementHarness,
  startReplica,
  type EnforcementHarness,
  type TestBox,
} from '../fixtures/enforcement-harness';

// The box scan worker on two replicas (issue #34, "Singletons that are not"). A scan is leased in
// its row (lease_until, 30 s of the service's clock, renewed page by page; the due row taken FOR
// UPDATE SKIP LOCKED), and held across the call to detection, outside any transaction: a replica
// that dies leaves the lease to run out, and one that stalls past it (paused, or cut off and back)
// must find its writes refused when it resumes, since the other replica took the scan over. Its
// violations are opened once whatever happens (one open violation per avatar and box, and an
// answer older than the newest applied is dropped).

let h: EnforcementHarness;
let replica: RunningEnforcement;
let db: Database;

beforeAll(async () => {
  h = await startEnforcementHarness();
  replica = await startReplica(h);
  db = await createDatabase({ url: h.databaseUrl });
});
afterAll(async () => {
  await db.close();
  await replica.stop();
  await h.stop();
});

const LEASE_MS = 30_000;
let boxes = 0;

/** A box whose identity `avatars` reported avatars already impersonate (found by its scan only). */
async function boxWithImpostors(avatars: number): Promise<TestBox> {
  boxes += 1;
  const name = `Scanned Person ${boxes}`;
  const client = h.platform();
  for (let i = 0; i < avatars; i += 1) await h.avatar(client, `scan-${boxes}-${i}`, `${name} bot ${i}`);
  return h.box(name, 'BLOCK_ALL');
}

async function scanRow(box: TestBox) {
  const { rows } = await db.query<{ attempts: number }>('SELECT attempts FROM box_scans WHERE box_id = $1', [
    box.boxId,
  ]);
  return rows[0];
}

/** What the box's scan left: its row, its completion events, its violations per avatar. */
async function scanOf(box: TestBox) {
  const scan = await db.query<{ status: string; violations_created: number; lease_until: Date | null }>(
    'SELECT status, violations_created, lease_until FROM box_scans WHERE box_id = $1',
    [box.boxId],
  );
  const completed = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM outbox
      WHERE type = 'enforcement.box_scan.completed' AND payload->'data'->>'boxId' = $1`,
    [box.boxId],
  );
  const violations = await db.query<{ avatars: number; n: number }>(
    'SELECT count(DISTINCT avatar_ref)::int AS avatars, count(*)::int AS n FROM violations WHERE box_id = $1',
    [box.boxId],
  );
  return {
    status: scan.rows[0]?.status,
    violationsCreated: scan.rows[0]?.violations_created,
    completedEvents: completed.rows[0]?.n,
    violations: violations.rows[0],
  };
}

describe('the box scan worker on two replicas', () => {
  it('when both replicas run scan passes at once over new boxes, then each box is scanned once: one completion, one violation per impostor', async () => {
    const scanned: TestBox[] = [];
    for (let i = 0; i < 6; i += 1) scanned.push(await boxWithImpostors(3));
    for (const box of scanned) await h.indexed(box);
    // The indexing kicked the first replica's worker; both replicas now pass over the scans at
    // once, again and again, until every scan is completed.
    await waitFor(
      async () => {
        await Promise.all([h.running.runBoxScans(), replica.runBoxScans(), replica.runBoxScans()]);
        const { rows } = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM box_scans WHERE box_id = ANY($1::text[]) AND status = 'completed'`,
          [scanned.map((box) => box.boxId)],
        );
        return rows[0]?.n === scanned.length;
      },
      { what: 'every scan completed', timeoutMs: 10_000 },
    );
    for (const box of scanned) {
      expect(await scanOf(box)).toEqual({
        status: 'completed',
        violationsCreated: 3,
        completedEvents: 1,
        violations: { avatars: 3, n: 3 },
      });
    }
  });

  it('when the replica scanning a box stalls past its lease and then resumes, then the other takes the scan over only once the lease ran out, and the stalled one changes nothing when it resumes', async () => {
    const box = await boxWithImpostors(3);
    // The indexing kicks the first replica's worker in the background: detection is down for that
    // pass, which backs the scan off by 2 s.
    h.detection.down = true;
    await h.indexed(box);
    await waitFor(async () => (await scanRow(box))?.attempts === 1, { what: 'the kicked pass backing off' });
    h.detection.down = false;
    h.clock.advance(2000);
    // The second replica leases the scan and asks detection: the answer is held back, as if its
    // process were paused, or cut off and back.
    const held = h.detection.holdNextScan();
    const stalled = replica.runBoxScans();
    await held.received;
    // Within its lease the other replica leaves the scan alone.
    h.clock.advance(LEASE_MS - 1000);
    expect(await h.running.runBoxScans()).toBe(0);
    expect((await scanOf(box)).status).toBe('in_progress');
    // Once the lease ran out, the other replica takes it over and completes it.
    h.clock.advance(2000);
    expect(await h.running.runBoxScans()).toBe(1);
    const done = await scanOf(box);
    expect(done).toEqual({
      status: 'completed',
      violationsCreated: 3,
      completedEvents: 1,
      violations: { avatars: 3, n: 3 },
    });
    // The stalled replica resumes with its old answer: its lease is gone, none of its writes lands.
    held.release();
    expect(await stalled).toBe(0);
    expect(await scanOf(box)).toEqual(done);
    const progress = await h.owner(box).call('GET', `/internal/boxes/${box.boxId}/scan`);
    expect(progress.body.data).toMatchObject({ status: 'completed', violationsFound: 3 });
  });
});
