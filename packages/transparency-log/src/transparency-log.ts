import {
  consistencyProof,
  EMPTY_ROOT,
  inclusionProof,
  leafHash,
  nodeHash,
  type Hash,
  type SubtreeHash,
} from '@svc/merkle-log';
import type { Queryable } from '@svc/ports';
import type { NewEntry, LogPosition, StoredEntry, SignedTreeHead, TreeHeadSigner } from './log-entries';
import { type Perfect, keyOf, perfectParts, assemble } from './perfect-subtrees';
import { treeHeadPayload } from './canonical-bytes';
export * from './log-entries';
export * from './canonical-bytes';

// The transparency log (docs/spec/contracts.md §16, issue #31) over PostgreSQL: leaves appended in commit order,
// the hash of every complete aligned subtree stored when its last leaf arrives, and tree heads and
// proofs assembled from those stored hashes in one query each, whatever the size of the log.

type Row = Record<string, unknown>;
const num = (value: unknown): number => Number(value);
const buf = (value: unknown): Buffer => Buffer.from(value as Uint8Array);

export class TransparencyLog {
  /**
   * Appends an entry once: the source already appended answers where it is. Serialised on the
   * state row, so indexes follow commit order without gaps. Run it in the transaction of the change
   * (or of the inbox record) it tells about.
   */
  async append(tx: Queryable, entry: NewEntry): Promise<LogPosition & { appended: boolean }> {
    const [position] = await this.appendMany(tx, [entry]);
    if (position === undefined) throw new Error('appendMany answered nothing for one entry');
    return position;
  }

  /**
   * Appends entries in order, each source once (a source already in the log, or earlier in the
   * same call, answers where it is), with one lock of the state row, one read of the sources and of
   * the stored subtrees the new leaves complete, and one insert of each: a consumer appending a
   * batch of events per transaction pays the log's round trips once per batch, not per entry.
   */
  async appendMany(
    tx: Queryable,
    entries: readonly NewEntry[],
  ): Promise<Array<LogPosition & { appended: boolean }>> {
    if (entries.length === 0) return [];
    const state = await tx.query<Row>('SELECT size FROM transparency_state WHERE id = 1 FOR UPDATE');
    const start = num(state.rows[0]?.size ?? 0);
    // Checked under the lock: a concurrent append of the same source has committed or not started.
    const existing = await tx.query<Row>(
      'SELECT source_id, idx, leaf_hash FROM transparency_entries WHERE source_id = ANY($1::text[])',
      [[...new Set(entries.map((e) => e.sourceId))]],
    );
    const bySource = new Map<string, LogPosition & { appended: boolean }>();
    for (const row of existing.rows)
      bySource.set(String(row.source_id), {
        index: num(row.idx),
        leafHash: buf(row.leaf_hash),
        appended: false,
      });

    const fresh: Array<{ entry: NewEntry; index: number; leaf: Hash }> = [];
    const positions = entries.map((entry) => {
      const known = bySource.get(entry.sourceId);
      if (known !== undefined) return known.appended ? { ...known, appended: false } : known;
      const index = start + fresh.length;
      const leaf = leafHash(entry.entry);
      fresh.push({ entry, index, leaf });
      const position = { index, leafHash: leaf, appended: true };
      bySource.set(entry.sourceId, position);
      return position;
    });
    if (fresh.length === 0) return positions;

    // The subtrees each new leaf completes: one per trailing 1 bit of its index, the parent of the
    // previous one and of its left sibling. A sibling that ended before this call is stored; one
    // that ends inside it was completed by an earlier leaf of the call.
    const lefts: Perfect[] = [];
    for (const { index } of fresh) {
      for (let level = 0; ((index >> level) & 1) === 1; level += 1) {
        const left = { level, idx: (index >> level) - 1 };
        if ((left.idx + 1) * 2 ** level <= start) lefts.push(left);
      }
    }
    const known = await this.fetch(tx, lefts);
    const levels: number[] = [];
    const idxs: number[] = [];
    const hashes: Buffer[] = [];
    for (const { index, leaf } of fresh) {
      known.set(keyOf({ level: 0, idx: index }), leaf);
      let hash = leaf;
      for (let level = 0; ((index >> level) & 1) === 1; level += 1) {
        const left = { level, idx: (index >> level) - 1 };
        const sibling = known.get(keyOf(left));
        if (sibling === undefined) throw new Error(`the log has no subtree ${keyOf(left)}`);
        hash = nodeHash(sibling, hash);
        const parent = { level: level + 1, idx: left.idx / 2 };
        known.set(keyOf(parent), hash);
        levels.push(parent.level);
        idxs.push(parent.idx);
        hashes.push(hash);
      }
    }

    const values: unknown[] = [];
    const rows = fresh.map(({ entry, index, leaf }, i) => {
      values.push(index, leaf, Buffer.from(entry.entry), [...entry.parties], entry.sourceId, entry.at);
      const p = i * 6;
      return `($${p + 1}, $${p + 2}, $${p + 3}, $${p + 4}::text[], $${p + 5}, $${p + 6})`;
    });
    await tx.query(
      `INSERT INTO transparency_entries (idx, leaf_hash, entry, parties, source_id, appended_at)
       VALUES ${rows.join(', ')}`,
      values,
    );
    if (levels.length > 0) {
      await tx.query(
        `INSERT INTO transparency_subtrees (level, idx, hash)
         SELECT * FROM unnest($1::smallint[], $2::bigint[], $3::bytea[])`,
        [levels, idxs, hashes],
      );
    }
    await tx.query('UPDATE transparency_state SET size = $1 WHERE id = 1', [start + fresh.length]);
    return positions;
  }

  async size(q: Queryable): Promise<number> {
    const { rows } = await q.query<Row>('SELECT size FROM transparency_state WHERE id = 1');
    return num(rows[0]?.size ?? 0);
  }

  /** The root of the first `treeSize` leaves (default: all). */
  async rootAt(q: Queryable, treeSize?: number): Promise<{ treeSize: number; rootHash: Hash }> {
    const size = treeSize ?? (await this.size(q));
    const parts: Perfect[] = [];
    perfectParts(0, size, parts);
    const known = await this.fetch(q, parts);
    return { treeSize: size, rootHash: assemble(0, size, known) };
  }

  /**
   * The newest signed tree head, signing a new one when the log grew since: a tree head is signed
   * once per size, so every head ever answered stays provable against the next.
   */
  async signedTreeHead(q: Queryable, sign: TreeHeadSigner, now: Date): Promise<SignedTreeHead> {
    const size = await this.size(q);
    const latest = await q.query<Row>(
      'SELECT tree_size, root_hash, signed_at, signature FROM transparency_tree_heads ORDER BY tree_size DESC LIMIT 1',
    );
    const row = latest.rows[0];
    if (row !== undefined && num(row.tree_size) >= size) return headOf(row);
    const { rootHash } = await this.rootAt(q, size);
    const head = { treeSize: size, rootHash, timestamp: now };
    const signature = await sign(treeHeadPayload(head));
    // Two replicas signing the same size at once: the first one's head stays, and is answered.
    await q.query(
      `INSERT INTO transparency_tree_heads (tree_size, root_hash, signed_at, signature)
       VALUES ($1, $2, $3, $4) ON CONFLICT (tree_size) DO NOTHING`,
      [size, rootHash, now, signature],
    );
    const stored = await q.query<Row>(
      'SELECT tree_size, root_hash, signed_at, signature FROM transparency_tree_heads WHERE tree_size = $1',
      [size],
    );
    return headOf(stored.rows[0] ?? {});
  }

  /** A tree head signed earlier at exactly this size, or null. */
  async signedTreeHeadAt(q: Queryable, treeSize: number): Promise<SignedTreeHead | null> {
    const { rows } = await q.query<Row>(
      'SELECT tree_size, root_hash, signed_at, signature FROM transparency_tree_heads WHERE tree_size = $1',
      [treeSize],
    );
    return rows[0] === undefined ? null : headOf(rows[0]);
  }

  /** Where the first leaf with this hash is, if it is within the first `treeSize` leaves. */
  async find(q: Queryable, leaf: Uint8Array, treeSize: number): Promise<number | null> {
    const { rows } = await q.query<Row>(
      'SELECT idx FROM transparency_entries WHERE leaf_hash = $1 AND idx < $2 ORDER BY idx LIMIT 1',
      [Buffer.from(leaf), treeSize],
      { name: 'transparency_find_leaf' },
    );
    return rows[0] === undefined ? null : num(rows[0].idx);
  }

  async entry(q: Queryable, index: number): Promise<StoredEntry | null> {
    const { rows } = await q.query<Row>(
      'SELECT idx, leaf_hash, entry, parties, appended_at FROM transparency_entries WHERE idx = $1',
      [index],
    );
    const row = rows[0];
    if (row === undefined) return null;
    return {
      index: num(row.idx),
      leafHash: buf(row.leaf_hash),
      entry: buf(row.entry),
      parties: row.parties as string[],
      appendedAt: new Date(row.appended_at as string | Date),
    };
  }

  /** The audit path of leaf `index` in the tree of `treeSize` leaves (RFC 9162 §2.1.3.1). */
  async inclusionProof(q: Queryable, index: number, treeSize: number): Promise<Hash[]> {
    return this.prove(q, (mth) => inclusionProof(index, treeSize, mth));
  }

  /** The proof that the tree of `first` leaves is a prefix of the tree of `second` (RFC 9162 §2.1.4.1). */
  async consistencyProof(q: Queryable, first: number, second: number): Promise<Hash[]> {
    return this.prove(q, (mth) => consistencyProof(first, second, mth));
  }

  /**
   * Runs a proof twice: first to learn which subtrees it reads (its path depends on sizes only,
   * never on hashes), then, once they are fetched in one query, for real.
   */
  private async prove(q: Queryable, proof: (mth: SubtreeHash) => Hash[]): Promise<Hash[]> {
    const parts: Perfect[] = [];
    proof((start, end) => {
      perfectParts(start, end, parts);
      return EMPTY_ROOT;
    });
    const known = await this.fetch(q, parts);
    return proof((start, end) => assemble(start, end, known));
  }

  private async fetch(q: Queryable, parts: readonly Perfect[]): Promise<Map<string, Hash>> {
    const known = new Map<string, Hash>();
    if (parts.length === 0) return known;
    const leaves = [...new Set(parts.filter((p) => p.level === 0).map((p) => p.idx))];
    const inner = parts.filter((p) => p.level > 0);
    const { rows } = await q.query<Row>(
      `SELECT 0 AS level, idx, leaf_hash AS hash FROM transparency_entries WHERE idx = ANY($1::bigint[])
       UNION ALL
       SELECT s.level, s.idx, s.hash FROM transparency_subtrees s
       JOIN unnest($2::smallint[], $3::bigint[]) AS w(level, idx) ON s.level = w.level AND s.idx = w.idx`,
      [leaves, inner.map((p) => p.level), inner.map((p) => p.idx)],
      { name: 'transparency_fetch_subtrees' },
    );
    for (const row of rows) known.set(keyOf({ level: num(row.level), idx: num(row.idx) }), buf(row.hash));
    return known;
  }
}

function headOf(row: Row): SignedTreeHead {
  return {
    treeSize: num(row.tree_size),
    rootHash: buf(row.root_hash),
    timestamp: new Date(row.signed_at as string | Date),
    signature: String(row.signature),
  };
}
