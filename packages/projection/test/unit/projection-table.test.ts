import { createDatabase, sql, type Database } from '@svc/storage';
import { ProjectionTable, Tombstones } from '../../src';

// A service's generated DB, as kysely-codegen writes it (camelCase over snake_case columns).
interface DB {
  things: {
    thingId: string;
    status: string;
    firstSeenAt: Date | null;
    version: number;
    updatedAt: Date;
    rank: number;
    deletedAt: Date | null;
  };
  goneThings: { thingId: string };
}

const things = new ProjectionTable<DB, 'things'>({
  table: 'things',
  key: 'thingId',
  version: 'version',
  at: 'updatedAt',
  tombstone: 'deletedAt',
});
const ranked = new ProjectionTable<DB, 'things'>({
  table: 'things',
  key: 'thingId',
  version: 'version',
  at: 'updatedAt',
  rank: 'rank',
});
const gone = new Tombstones<DB, 'goneThings'>('goneThings', 'thingId');

const t = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds));
const state = (status: string, version: number, at: number, rank = 0) => ({
  thingId: 'th_1',
  status,
  firstSeenAt: t(at),
  version,
  updatedAt: t(at),
  rank,
});

let db: Database;

beforeAll(async () => {
  db = await createDatabase({ url: 'pglite://memory' });
  await db.exec(`
    CREATE TABLE things (thing_id text PRIMARY KEY, status text NOT NULL, first_seen_at timestamptz,
      version integer NOT NULL DEFAULT 0, updated_at timestamptz NOT NULL, rank integer NOT NULL DEFAULT 0,
      deleted_at timestamptz);
    CREATE TABLE gone_things (thing_id text PRIMARY KEY);`);
}, 120_000);

beforeEach(() => db.exec('TRUNCATE things, gone_things'));
afterAll(() => db.close());

async function stored() {
  const { rows } = await db.query<{ status: string; version: number; first_seen_at: Date | null }>(
    'SELECT status, version, first_seen_at FROM things',
  );
  return rows[0];
}

describe('ProjectionTable.upsertIfNewer', () => {
  it('when a newer version arrives, then it replaces the stored state, whatever its instant', async () => {
    expect(await things.upsertIfNewer(db, state('pending', 1, 9))).toBe(true);
    expect(await things.upsertIfNewer(db, state('active', 2, 1))).toBe(true);
    expect((await stored())?.status).toBe('active');
  });

  it('when an older version arrives, then it changes nothing and says so', async () => {
    await things.upsertIfNewer(db, state('active', 2, 1));
    expect(await things.upsertIfNewer(db, state('pending', 1, 9))).toBe(false);
    expect(await stored()).toMatchObject({ status: 'active', version: 2 });
  });

  it('when the version is the same, then the later instant wins in either order', async () => {
    await things.upsertIfNewer(db, state('early', 0, 1));
    expect(await things.upsertIfNewer(db, state('late', 0, 2))).toBe(true);
    expect(await things.upsertIfNewer(db, state('early', 0, 1))).toBe(false);
    expect((await stored())?.status).toBe('late');
  });

  it('when the same event is restated, then the state stays the same', async () => {
    await things.upsertIfNewer(db, state('active', 3, 4));
    await things.upsertIfNewer(db, state('active', 3, 4));
    expect(await stored()).toMatchObject({ status: 'active', version: 3 });
  });

  it('when only some columns are to be replaced, then the others keep what the row was created with', async () => {
    await things.upsertIfNewer(db, state('pending', 1, 1));
    await things.upsertIfNewer(db, state('active', 2, 5), { update: ['status', 'version', 'updatedAt'] });
    expect(await stored()).toMatchObject({ status: 'active', first_seen_at: t(1) });
  });

  it('when a guard is given, then it decides with the rule instead of the rule alone', async () => {
    await things.upsertIfNewer(db, state('final', 1, 1));
    const notFinal = await things.upsertIfNewer(db, state('active', 2, 2), {
      guard: ({ stored: was, newer }) => sql<boolean>`${was('status')} <> 'final' AND ${newer}`,
    });
    expect(notFinal).toBe(false);
    expect((await stored())?.status).toBe('final');
  });
});

describe('ProjectionTable.bury', () => {
  const tombstone = { ...state('deleted', 0, 3), deletedAt: t(3) };

  it('when the deletion arrives before the creation, then the creation changes nothing', async () => {
    expect(await things.bury(db, tombstone)).toBe(true);
    expect(await things.upsertIfNewer(db, state('active', 5, 9))).toBe(false);
    expect(await stored()).toMatchObject({ status: 'deleted' });
  });

  it('when a stored entity is deleted twice, then the first deletion stays', async () => {
    await things.upsertIfNewer(db, state('active', 1, 1));
    expect(await things.bury(db, tombstone)).toBe(true);
    expect(await things.bury(db, { ...tombstone, deletedAt: t(8) })).toBe(false);
    const { rows } = await db.query<{ deleted_at: Date; status: string }>(
      'SELECT deleted_at, status FROM things',
    );
    // Only the tombstone is written over a stored state: the rest is as the last event left it.
    expect(rows[0]).toEqual({ deleted_at: t(3), status: 'active' });
  });

  it('when a table keeps no tombstone column, then burying fails loudly', async () => {
    await expect(ranked.bury(db, state('deleted', 0, 1))).rejects.toThrow(/no tombstone/);
  });
});

describe('ProjectionTable.mergeNewer', () => {
  it('when an older fact arrives, then the newer state stays and what only the older one knew is kept', async () => {
    const noFirstSeen = { ...state('resolved', 2, 5, 1), firstSeenAt: null };
    await ranked.mergeNewer(db, noFirstSeen, {
      set: ({ stored: was, incoming }) => ({
        firstSeenAt: sql`coalesce(${was('firstSeenAt')}, ${incoming('firstSeenAt')})`,
      }),
    });
    await ranked.mergeNewer(db, state('pending', 1, 1), {
      update: ['status', 'version', 'updatedAt', 'rank'],
      set: ({ stored: was, incoming }) => ({
        firstSeenAt: sql`coalesce(${was('firstSeenAt')}, ${incoming('firstSeenAt')})`,
      }),
    });
    expect(await stored()).toMatchObject({ status: 'resolved', version: 2, first_seen_at: t(1) });
  });

  it('when version and instant are equal, then the higher rank wins in either order', async () => {
    await ranked.mergeNewer(db, state('resolved', 0, 4, 1));
    await ranked.mergeNewer(db, state('pending', 0, 4, 0));
    expect((await stored())?.status).toBe('resolved');
    await ranked.mergeNewer(db, state('pending', 0, 5, 0));
    expect((await stored())?.status).toBe('pending');
  });
});

describe('Tombstones', () => {
  it('when an id is buried, then it is known as buried, and burying it again changes nothing', async () => {
    expect(await gone.isBuried(db, 'th_1')).toBe(false);
    await gone.bury(db, 'th_1');
    await gone.bury(db, 'th_1');
    expect(await gone.isBuried(db, 'th_1')).toBe(true);
    expect(await gone.isBuried(db, 'th_2')).toBe(false);
  });
});
