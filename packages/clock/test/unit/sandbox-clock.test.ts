import { createDatabase, type Database } from '@svc/storage';
import { ManualClock, platformNow, SandboxClockRepository } from '../../src';

// The table every service that follows sandbox clocks creates in its own migrations.
const TABLE = `CREATE TABLE sandbox_clocks (
  platform_id text PRIMARY KEY,
  offset_ms bigint NOT NULL,
  updated_at timestamptz NOT NULL
)`;

let db: Database;
const clocks = new SandboxClockRepository();
const HOUR = 3_600_000;

beforeAll(async () => {
  db = await createDatabase({ url: 'pglite://memory' });
  await db.exec(TABLE);
});

beforeEach(async () => {
  await db.exec('TRUNCATE sandbox_clocks');
});

afterAll(async () => {
  await db.close();
});

describe('sandbox clocks', () => {
  it('when a platform never moved its clock, then its time is the service clock and it is not ahead', async () => {
    const clock = new ManualClock('2026-11-22T10:00:00Z');
    expect(await clocks.offsetOf(db, 'plat_a')).toBe(0);
    expect((await platformNow({ clock, clocks }, db, 'plat_a')).toISOString()).toBe(
      '2026-11-22T10:00:00.000Z',
    );
    expect(await clocks.ahead(db)).toEqual([]);
  });

  it('when a platform advances twice, then the moves add up and only its own time moves', async () => {
    const clock = new ManualClock('2026-11-22T10:00:00Z');
    const at = clock.now();
    expect(await db.transaction((tx) => clocks.advance(tx, 'plat_a', 24 * HOUR, at))).toBe(24 * HOUR);
    expect(await db.transaction((tx) => clocks.advance(tx, 'plat_a', HOUR, at))).toBe(25 * HOUR);
    expect((await platformNow({ clock, clocks }, db, 'plat_a')).toISOString()).toBe(
      '2026-11-23T11:00:00.000Z',
    );
    expect((await platformNow({ clock, clocks }, db, 'plat_b')).toISOString()).toBe(
      '2026-11-22T10:00:00.000Z',
    );
    expect(await clocks.ahead(db)).toEqual([{ platformId: 'plat_a', offsetMs: 25 * HOUR }]);
  });

  it('when the service clock moves, then a platform time keeps its offset on top of it', async () => {
    const clock = new ManualClock('2026-11-22T10:00:00Z');
    await db.transaction((tx) => clocks.advance(tx, 'plat_a', HOUR, clock.now()));
    clock.advance(30 * 60_000);
    expect((await platformNow({ clock, clocks }, db, 'plat_a')).toISOString()).toBe(
      '2026-11-22T11:30:00.000Z',
    );
  });

  it('when an offset goes past 2^31 ms (a decade of advance-time), then it is still exact', async () => {
    const decade = 3_650 * 24 * HOUR;
    await db.transaction((tx) => clocks.advance(tx, 'plat_a', decade, new Date()));
    expect(await clocks.offsetOf(db, 'plat_a')).toBe(decade);
  });

  it('when asked to move backwards or by a fraction of a millisecond, then it refuses and nothing changes', async () => {
    await expect(db.transaction((tx) => clocks.advance(tx, 'plat_a', -1, new Date()))).rejects.toThrow(
      RangeError,
    );
    await expect(db.transaction((tx) => clocks.advance(tx, 'plat_a', 0.5, new Date()))).rejects.toThrow(
      RangeError,
    );
    expect(await clocks.offsetOf(db, 'plat_a')).toBe(0);
  });
});
