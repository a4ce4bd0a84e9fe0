import { entityIdOf } from '@svc/contracts/catalogue';
import { entityVersionOf, type EventEnvelope } from '@svc/contracts/common';
import { claimUpdated } from '@svc/contracts/registry';
import { newId } from '@svc/ids';
import { appendToOutbox, currentEntityVersion, messagingMigrations } from '@svc/messaging';
import { createDatabase, runMigrations, type Database } from '@svc/storage';
import { freshPostgresDatabase } from '@svc/test-kit';
import { anEvent } from '../event-builder';

// ADR 0010: the outbox stamps each event about an entity with the entity's next version, in the
// transaction that writes it, so versions follow commit order even when writers race.

let database: { url: string; drop(): Promise<void> };
let db: Database;

beforeAll(async () => {
  database = await freshPostgresDatabase('entity_versions');
  db = await createDatabase({ url: database.url });
  await runMigrations(db, [messagingMigrations]);
});
afterAll(async () => {
  await db.close();
  await database.drop();
});

const claimEvent = (claimId: string): EventEnvelope =>
  claimUpdated.create(
    {
      claimId,
      ownerPlatformId: 'plat_0000000000000000',
      name: 'Ada Lovelace',
      variations: [],
      entityType: 'INDIVIDUAL',
      status: 'verified',
      verificationTier: 'SILVER',
      referenceImages: [],
      verifiedAt: '2026-11-01T00:00:00.000Z',
      boxId: null,
      createdAt: '2026-11-01T00:00:00.000Z',
      updatedAt: '2026-11-01T00:00:00.000Z',
    },
    { occurredAt: new Date('2026-11-01T00:00:00.000Z') },
  );

const stored = async (eventIds: string[]) =>
  (
    await db.query<{ payload: EventEnvelope }>(
      'SELECT payload FROM outbox WHERE event_id = ANY($1::text[]) ORDER BY id',
      [eventIds],
    )
  ).rows.map((row) => row.payload);

describe('entity versions stamped by the outbox', () => {
  it('when events about one entity are written, then they carry versions 1, 2, 3 and the owner can read the latest', async () => {
    const claimId = newId('claim');
    const events = [claimEvent(claimId), claimEvent(claimId), claimEvent(claimId)];
    await db.transaction((tx) => appendToOutbox(tx, events[0] as EventEnvelope, events[1] as EventEnvelope));
    await db.transaction((tx) => appendToOutbox(tx, events[2] as EventEnvelope));
    const rows = await stored(events.map((e) => e.id));
    expect(rows.map((e) => e.entity)).toEqual([1, 2, 3].map((version) => ({ id: claimId, version })));
    expect(rows.map(entityVersionOf)).toEqual([1, 2, 3]);
    expect(await currentEntityVersion(db, claimId)).toBe(3);
    expect(await currentEntityVersion(db, newId('claim'))).toBe(0);
  });

  it('when two transactions write about one entity at once, then the one committing second has the higher version', async () => {
    const claimId = newId('claim');
    const first = claimEvent(claimId);
    const second = claimEvent(claimId);
    let releaseFirst = () => undefined as void;
    const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve));
    const committed: string[] = [];
    const a = db.transaction(async (tx) => {
      await appendToOutbox(tx, first);
      await firstHolds;
    });
    // Let the first take the entity's counter row before the second starts.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const b = db.transaction((tx) => appendToOutbox(tx, second)).then(() => committed.push('second'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    // The second waits on the counter row while the first is open.
    expect(committed).toEqual([]);
    releaseFirst();
    await a;
    await b;
    const rows = await stored([first.id, second.id]);
    expect(Object.fromEntries(rows.map((e) => [e.id, entityVersionOf(e)]))).toEqual({
      [first.id]: 1,
      [second.id]: 2,
    });
  });

  it('when an event type versions no entity, then it is written without a version', async () => {
    const event = anEvent('reg.box.created', { boxId: newId('box') });
    expect(entityIdOf(event)).toBeNull();
    await db.transaction((tx) => appendToOutbox(tx, event));
    expect((await stored([event.id]))[0]?.entity).toBeUndefined();
  });
});
