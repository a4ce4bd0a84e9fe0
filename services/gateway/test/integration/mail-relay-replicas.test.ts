import { ManualClock } from '@svc/clock';
import type { MailMessage } from '@svc/mail';
import { createDatabase, runMigrations, type Database, type QueryOptions } from '@svc/storage';
import { freshPostgresDatabase, waitFor } from '@svc/test-kit';
import { gatewayMigrations } from '../../src';
import { MailOutboxRepository } from '../../src/data-access/account-mail.repository';
import { CLAIM_LEASE_MS, relayAccountMail } from '../../src/domain/relay-account-mail.use-case';

// The account-mail relay on two gateway replicas (issue #34, "Singletons that are not"). A pass
// claims due mail in a short transaction (FOR UPDATE SKIP LOCKED, then next_attempt_at pushed to
// the end of a 2-minute claim) and sends it outside any transaction, so the claim is a lease: a
// relay that dies leaves its claimed mail to the other once the claim ran out, and one that stalls
// past its claim (a paused process, a link that came back late) must send none of what it still
// holds, which the other relay may have claimed and sent since. A mail is sent at least once: one
// whose send was under way when its relay died is sent again. The replicas here are two relays,
// each with its own pool, on one database.

let database: { url: string; drop(): Promise<void> };
let setup: Database;
const pools: Database[] = [];
const outbox = new MailOutboxRepository();
const clock = new ManualClock('2026-12-01T09:00:00.000Z');

beforeAll(async () => {
  database = await freshPostgresDatabase('mail_relay_replicas');
  setup = await createDatabase({ url: database.url });
  await runMigrations(setup, gatewayMigrations());
});
afterAll(async () => {
  for (const pool of pools) await pool.close();
  await setup.close();
  await database.drop();
});

async function pool(): Promise<Database> {
  const db = await createDatabase({ url: database.url, maxConnections: 2 });
  pools.push(db);
  return db;
}

let queued = 0;
/** `count` mails waiting in the outbox, due now; their ids. */
async function queue(count: number): Promise<string[]> {
  const ids: string[] = [];
  await setup.transaction(async (tx) => {
    for (let i = 0; i < count; i += 1) {
      queued += 1;
      const id = `mail_${String(queued).padStart(4, '0')}`;
      await outbox.enqueue(tx, {
        id,
        to: `${id}@example.com`,
        subject: 'Hello',
        text: id,
        createdAt: clock.now(),
      });
      ids.push(id);
    }
  });
  return ids;
}

/** Every mail delivered to the mail server, by every relay: the ids (each mail's text is its id). */
const delivered: string[] = [];

/** A mail server that accepts everything (after `before`, when given, for the nth send). */
function mailer(before?: (nth: number) => Promise<void> | undefined) {
  let sends = 0;
  return {
    send: async (message: MailMessage) => {
      sends += 1;
      await before?.(sends);
      delivered.push(message.text);
    },
    close: async () => undefined,
  };
}

const timesDelivered = (ids: string[]) => ids.map((id) => delivered.filter((d) => d === id).length);

async function unsent(ids: string[]): Promise<string[]> {
  const { rows } = await setup.query<{ id: string }>(
    'SELECT id FROM mail_outbox WHERE sent_at IS NULL AND id = ANY($1::text[]) ORDER BY id',
    [ids],
  );
  return rows.map((row) => row.id);
}

describe('the account-mail relay on two replicas', () => {
  it('when both relays run passes at once until the outbox is empty, then every mail is sent once', async () => {
    const ids = await queue(24);
    const a = { db: await pool(), mailOutbox: outbox, mailer: mailer(), clock };
    const b = { db: await pool(), mailOutbox: outbox, mailer: mailer(), clock };
    for (let round = 0; round < 10 && (await unsent(ids)).length > 0; round += 1) {
      await Promise.all([a, b, a, b].map((relay) => relayAccountMail(relay, 4)));
    }
    expect(await unsent(ids)).toEqual([]);
    expect(timesDelivered(ids)).toEqual(ids.map(() => 1));
  });

  it('when the relay in the middle of a pass dies, then the other leaves its claimed mail alone until the claim ran out and then sends it once', async () => {
    const ids = await queue(8);
    // Relay a claims four mails, sends two, and dies in the middle of the third send.
    const dead = new Promise<void>(() => undefined);
    const a = {
      db: await pool(),
      mailOutbox: outbox,
      mailer: mailer((nth) => (nth === 3 ? dead : undefined)),
      clock,
    };
    const b = { db: await pool(), mailOutbox: outbox, mailer: mailer(), clock };
    void relayAccountMail(a, 4);
    await waitFor(async () => (await unsent(ids)).length === 6, { what: 'two mails sent by relay a' });
    expect(await relayAccountMail(b, 10)).toEqual({ sent: 4, failed: 0 });
    clock.advance(CLAIM_LEASE_MS - 1000);
    expect(await relayAccountMail(b, 10)).toEqual({ sent: 0, failed: 0 });
    clock.advance(1000);
    expect(await relayAccountMail(b, 10)).toEqual({ sent: 2, failed: 0 });
    expect(await unsent(ids)).toEqual([]);
    expect(timesDelivered(ids)).toEqual(ids.map(() => 1));
  });

  it('when the relay in the middle of a pass stalls past its claim and then resumes, then the other sends the rest of that claim once and the stalled one sends none of it', async () => {
    const ids = await queue(6);
    // Relay a's pool stalls once its second mail is marked sent: a paused process, a link that
    // came back late. The rest of its claim runs out meanwhile.
    const db = await pool();
    let marked = 0;
    let resume!: () => void;
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    let stall!: () => void;
    const stalled = new Promise<void>((resolve) => (stall = resolve));
    const stalling = Object.create(db) as Database;
    stalling.query = async <R extends object>(sql: string, params?: unknown[], options?: QueryOptions) => {
      const result = await db.query<R>(sql, params, options);
      if (/set "sent_at"/i.test(sql) && (marked += 1) === 2) {
        stall();
        await resumed;
      }
      return result;
    };
    const a = { db: stalling, mailOutbox: outbox, mailer: mailer(), clock };
    const b = { db: await pool(), mailOutbox: outbox, mailer: mailer(), clock };
    const pass = relayAccountMail(a, 4);
    await stalled;
    expect(await relayAccountMail(b, 10)).toEqual({ sent: 2, failed: 0 });
    clock.advance(CLAIM_LEASE_MS);
    expect(await relayAccountMail(b, 10)).toEqual({ sent: 2, failed: 0 });
    resume();
    expect(await pass).toEqual({ sent: 2, failed: 0 });
    expect(await unsent(ids)).toEqual([]);
    expect(timesDelivered(ids)).toEqual(ids.map(() => 1));
  });
});
