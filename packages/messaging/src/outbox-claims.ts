import type { EventEnvelope } from '@svc/contracts/common';
import type { Queryable } from '@svc/storage';

/** An outbox row as the relay publishes it. */
export interface OutboxRow {
  id: number;
  payload: EventEnvelope;
  traceContext: Record<string, string> | null;
}

interface StoredRow {
  id: number | string | bigint;
  payload: EventEnvelope;
  trace_context: Record<string, string> | null;
}

// The relay's statements are named (prepared once per connection, never planned again) and plain
// SQL: the relay runs them for every batch, and a query builder would rebuild each one each time.

// PostgreSQL (ADR 0037): the rows are claimed and marked sent by one statement, in the
// transaction that publishes them. Their locks keep other relays off them and the mark is only
// seen once the transaction commits, after the confirms; a crash or a throw rolls it back. `id > $2`
// starts the walk of the unsent index past the rows the previous pass claimed, whose index entries
// stay there until vacuum (see `OutboxRelay`'s rescan). The rows are found again by the `ctid`
// the locking read returned (a TID scan), not through the primary key a second time: they are
// locked by this transaction, so that version is the one to update.
const CLAIM_AND_MARK = `UPDATE outbox SET published_at = $1
WHERE ctid = ANY (ARRAY(
  SELECT ctid FROM outbox WHERE published_at IS NULL AND id > $2 ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED
))
RETURNING id, payload, trace_context`;

// Gives back the rows a pass claimed and did not get confirmed, recording the failed attempt on
// the first ($2, null when nothing was attempted), in the same transaction.
const RELEASE = `UPDATE outbox SET published_at = NULL,
  attempts = attempts + CASE WHEN id = $2::bigint THEN 1 ELSE 0 END,
  last_error = CASE WHEN id = $2::bigint THEN $3::text ELSE last_error END
WHERE id = ANY ($1::bigint[])`;

// PGlite holds no transaction while publishing (see `OutboxRelay`): read, publish, then mark.
const SELECT_UNSENT = `SELECT id, payload, trace_context FROM outbox
WHERE published_at IS NULL ORDER BY id LIMIT $1`;

const MARK_SENT = 'UPDATE outbox SET published_at = $1 WHERE id = ANY ($2::bigint[])';

const RECORD_FAILURE = 'UPDATE outbox SET attempts = attempts + 1, last_error = $2 WHERE id = $1';

const BACKLOG = `SELECT count(*)::int AS backlog, floor(extract(epoch from now() - min(created_at)))::int AS oldest
FROM outbox WHERE published_at IS NULL`;

const BACKLOG_COUNT = 'SELECT count(*)::int AS backlog FROM outbox WHERE published_at IS NULL AND id > $1';

function inIdOrder(rows: StoredRow[]): OutboxRow[] {
  return rows
    .map((row) => ({ id: Number(row.id), payload: row.payload, traceContext: row.trace_context }))
    .sort((a, b) => a.id - b.id);
}

/** Claims up to `limit` unsent rows after id `after`, marked sent at `now` when the transaction commits. */
export async function claimAndMark(
  tx: Queryable,
  input: { now: Date; after: number; limit: number },
): Promise<OutboxRow[]> {
  const { rows } = await tx.query<StoredRow>(CLAIM_AND_MARK, [input.now, input.after, input.limit], {
    name: 'messaging_outbox_claim',
  });
  return inIdOrder(rows);
}

/** Unmarks claimed rows that were not confirmed; `failed` gets the attempt and its reason. */
export async function releaseClaimed(
  tx: Queryable,
  input: { ids: number[]; failed: { id: number; reason: string } | null },
): Promise<void> {
  await tx.query(RELEASE, [input.ids, input.failed?.id ?? null, input.failed?.reason ?? null], {
    name: 'messaging_outbox_release',
  });
}

/** The first `limit` unsent rows, not locked (PGlite: one connection, one relay at a time). */
export async function selectUnsent(q: Queryable, limit: number): Promise<OutboxRow[]> {
  const { rows } = await q.query<StoredRow>(SELECT_UNSENT, [limit], { name: 'messaging_outbox_unsent' });
  return inIdOrder(rows);
}

export async function markSent(q: Queryable, ids: number[], now: Date): Promise<void> {
  await q.query(MARK_SENT, [now, ids], { name: 'messaging_outbox_mark' });
}

export async function recordFailure(q: Queryable, id: number, reason: string): Promise<void> {
  await q.query(RECORD_FAILURE, [id, reason], { name: 'messaging_outbox_failure' });
}

/** How many rows are unsent and how old the oldest is (seconds by the database's clock). */
export async function unsentBacklog(q: Queryable): Promise<{ count: number; oldest: number | null }> {
  const { rows } = await q.query<{ backlog: number; oldest: number | null }>(BACKLOG);
  return { count: rows[0]?.backlog ?? 0, oldest: rows[0]?.oldest ?? null };
}

/** The count alone, of the unsent rows after id `after`: on the unsent index, without reading the rows. */
export async function unsentCount(q: Queryable, after: number): Promise<number> {
  const { rows } = await q.query<{ backlog: number }>(BACKLOG_COUNT, [after], {
    name: 'messaging_outbox_backlog',
  });
  return rows[0]?.backlog ?? 0;
}

/** A busy relay's claims look back this often, from where the previous look back started. */
const LOOK_BACK_MS = 1000;

/** A busy relay's claims start from the first unsent row again this often. */
const FULL_RESCAN_MS = 10_000;

/**
 * Where a relay's next claim starts (PostgreSQL). The unsent index keeps the entries of the rows
 * sent since the last vacuum, and while passes overlap they are not yet dead to everyone, so each
 * claim from the first row would walk them all again: a claim starts after the previous one's last
 * row. A row that commits after a claim went past its id (its transaction took the id earlier) is
 * found by looking back: once a second from where the previous look back started, every 10 s from
 * the first row, and at the pass after one that was not full or failed.
 */
export class ClaimCursor {
  /** The last row the latest full claim took (0 after a claim that was not full, or a failure). */
  claimedUpTo = 0;
  private lookBackFrom = 0;
  private lookBackAt = Number.NEGATIVE_INFINITY;
  private fullRescanAt = Number.NEGATIVE_INFINITY;

  /** The id the next claim starts after. */
  next(): number {
    const now = performance.now();
    let after = this.claimedUpTo;
    if (now >= this.fullRescanAt) {
      after = 0;
      this.fullRescanAt = now + FULL_RESCAN_MS;
    } else if (now >= this.lookBackAt) {
      after = Math.min(this.lookBackFrom, after);
    } else {
      return after;
    }
    this.lookBackAt = now + LOOK_BACK_MS;
    this.lookBackFrom = this.claimedUpTo;
    return after;
  }

  /** Records the last id a full claim took; 0 makes the next claim start from the first row. */
  claimed(upTo: number): void {
    this.claimedUpTo = upTo;
  }
}
