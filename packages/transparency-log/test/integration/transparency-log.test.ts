import { generateKeyPairSync, sign as edSign, verify as edVerify } from 'node:crypto';
import fc from 'fast-check';
import {
  consistencyProof,
  inclusionProof,
  leafHash,
  rootOf,
  subtreeOf,
  verifyConsistency,
  verifyInclusion,
  type Hash,
} from '@svc/merkle-log';
import { createDatabase, runMigrations, type Database } from '@svc/storage';
import { freshPostgresDatabase } from '@svc/test-kit';
import { canonicalJson, TransparencyLog, transparencyLogMigrations, treeHeadPayload } from '../../src';

// The log over PostgreSQL (#31, docs/spec/contracts.md §16): what it stores answers exactly what RFC 9162's
// in-memory definitions answer, at every size; a source appends once; concurrent appends get
// consecutive indexes; tree heads are signed once per size; a rewritten row is caught.
let database: { url: string; drop(): Promise<void> };
let db: Database;
const log = new TransparencyLog();
const keys = generateKeyPairSync('ed25519');
const signer = async (payload: Uint8Array) => edSign(null, payload, keys.privateKey).toString('base64');

beforeAll(async () => {
  database = await freshPostgresDatabase('transparency_log');
  db = await createDatabase({ url: database.url });
  await runMigrations(db, [transparencyLogMigrations]);
});
afterAll(async () => {
  await db.close();
  await database.drop();
});

const entryBytes = (i: number) =>
  canonicalJson({ decision: 'license.activated', licenseId: `lic_${i}`, n: i });
const appended: Hash[] = [];

async function appendUpTo(size: number): Promise<void> {
  while (appended.length < size) {
    const i = appended.length;
    const position = await db.transaction((tx) =>
      log.append(tx, { sourceId: `evt_${i}`, entry: entryBytes(i), parties: ['plat_a'], at: new Date() }),
    );
    expect(position).toEqual({ index: i, leafHash: leafHash(entryBytes(i)), appended: true });
    appended.push(position.leafHash);
  }
}

describe('the transparency log over PostgreSQL', () => {
  it('when entries are appended one by one, then the root at every size is the RFC 9162 Merkle tree hash of the leaves', async () => {
    await appendUpTo(70);
    for (let size = 0; size <= 70; size += 1) {
      const { rootHash } = await log.rootAt(db, size);
      expect([size, rootHash.toString('hex')]).toEqual([
        size,
        rootOf(appended.slice(0, size)).toString('hex'),
      ]);
    }
  });

  it('when inclusion and consistency proofs are asked for, then they are the RFC proofs and verify against the roots', async () => {
    await appendUpTo(70);
    await fc.assert(
      fc.asyncProperty(
        fc
          .integer({ min: 1, max: 70 })
          .chain((size) =>
            fc.tuple(
              fc.constant(size),
              fc.integer({ min: 0, max: size - 1 }),
              fc.integer({ min: 0, max: size }),
            ),
          ),
        async ([size, index, first]) => {
          const leaves = appended.slice(0, size);
          const mth = subtreeOf(leaves);
          const root = rootOf(leaves);
          const path = await log.inclusionProof(db, index, size);
          expect(path).toEqual(inclusionProof(index, size, mth));
          expect(verifyInclusion(index, size, appended[index] as Hash, path, root)).toBe(true);
          const proof = await log.consistencyProof(db, first, size);
          expect(proof).toEqual(consistencyProof(first, size, mth));
          expect(verifyConsistency(first, size, proof, rootOf(appended.slice(0, first)), root)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('when the same source is appended again, then nothing is appended and its position is answered', async () => {
    await appendUpTo(70);
    const again = await db.transaction((tx) =>
      log.append(tx, {
        sourceId: 'evt_5',
        entry: Buffer.from('something else'),
        parties: [],
        at: new Date(),
      }),
    );
    expect(again).toEqual({ index: 5, leafHash: appended[5], appended: false });
    expect(await log.size(db)).toBe(70);
  });

  it('when twenty appends race, then they get consecutive indexes, each once, and the tree stays whole', async () => {
    await appendUpTo(70);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        db.transaction((tx) =>
          log.append(tx, { sourceId: `race_${i}`, entry: entryBytes(1000 + i), parties: [], at: new Date() }),
        ),
      ),
    );
    expect(results.map((r) => r.index).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, i) => 70 + i),
    );
    for (const r of results.sort((a, b) => a.index - b.index)) appended.push(r.leafHash);
    expect((await log.rootAt(db)).rootHash).toEqual(rootOf(appended));
  });

  it('when a tree head is asked for, then it is signed once per size and its signature covers size, root and time', async () => {
    const now = new Date('2026-11-29T08:00:00.000Z');
    const head = await log.signedTreeHead(db, signer, now);
    expect(head.treeSize).toBe(appended.length);
    expect(head.rootHash).toEqual(rootOf(appended));
    const signature = Buffer.from(head.signature, 'base64');
    expect(edVerify(null, treeHeadPayload(head), keys.publicKey, signature)).toBe(true);
    // Asked again at the same size: the same head, not a new signature.
    expect(await log.signedTreeHead(db, signer, new Date(now.getTime() + 60_000))).toEqual(head);
    expect(await log.signedTreeHeadAt(db, head.treeSize)).toEqual(head);
    expect(await log.find(db, appended[3] as Hash, head.treeSize)).toBe(3);
    expect(await log.find(db, Buffer.alloc(32), head.treeSize)).toBeNull();
    const stored = await log.entry(db, 3);
    expect(stored?.entry).toEqual(entryBytes(3));
    expect(stored?.parties).toEqual(['plat_a']);
  });

  it('when a row is rewritten behind the log, or a head’s root or signature is altered, then the proofs and the signature no longer verify against what was signed before', async () => {
    const before = await log.signedTreeHead(db, signer, new Date());
    // Someone with database access changes entry 6's leaf: its audit path no longer leads to the signed root.
    const forged = leafHash(Buffer.from('{"decision":"license.revoked"}'));
    await db.query('UPDATE transparency_entries SET leaf_hash = $1 WHERE idx = 6', [forged]);
    const path = await log.inclusionProof(db, 6, before.treeSize);
    expect(verifyInclusion(6, before.treeSize, forged, path, before.rootHash)).toBe(false);
    await db.query('UPDATE transparency_entries SET leaf_hash = $1 WHERE idx = 6', [appended[6]]);

    // Rewriting the stored subtree of leaves 0 to 63 too (a forger covering their tracks): the log's
    // root changes, and no consistency proof reconciles it with the head signed before.
    await db.transaction((tx) =>
      log.append(tx, { sourceId: 'after_forgery', entry: entryBytes(5000), parties: [], at: new Date() }),
    );
    await db.query('UPDATE transparency_subtrees SET hash = $1 WHERE level = 6 AND idx = 0', [forged]);
    const after = await log.rootAt(db);
    const proof = await log.consistencyProof(db, before.treeSize, after.treeSize);
    expect(verifyConsistency(before.treeSize, after.treeSize, proof, before.rootHash, after.rootHash)).toBe(
      false,
    );

    // A head whose root or signature was altered fails its signature.
    const signature = Buffer.from(before.signature, 'base64');
    const otherRoot = { ...before, rootHash: forged };
    expect(edVerify(null, treeHeadPayload(otherRoot), keys.publicKey, signature)).toBe(false);
    const flipped = Buffer.from(signature);
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(edVerify(null, treeHeadPayload(before), keys.publicKey, flipped)).toBe(false);
  });
});

describe('appending a batch in one transaction', () => {
  it('when any sequence of batches (with sources repeated inside a batch and across batches) is appended, then each source is logged once and every root and proof is the one of appending them one by one', async () => {
    const batches = await freshPostgresDatabase('transparency_batches');
    const bdb = await createDatabase({ url: batches.url });
    try {
      await runMigrations(bdb, [transparencyLogMigrations]);
      let run = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.array(fc.nat(60), { minLength: 1, maxLength: 9 }), { minLength: 1, maxLength: 12 }),
          async (sizesAndPicks) => {
            run += 1;
            await bdb.query('TRUNCATE transparency_entries, transparency_subtrees, transparency_tree_heads');
            await bdb.query('UPDATE transparency_state SET size = 0 WHERE id = 1');
            const leaves: Hash[] = [];
            const indexOf = new Map<number, number>();
            for (const picks of sizesAndPicks) {
              // Each pick names a source: a new one, or one appended before (a redelivery).
              const entries = picks.map((n) => ({
                sourceId: `r${run}_${n}`,
                entry: entryBytes(n),
                parties: ['plat_a'],
                at: new Date(),
              }));
              const positions = await bdb.transaction((tx) => log.appendMany(tx, entries));
              picks.forEach((n, i) => {
                const known = indexOf.get(n);
                if (known === undefined) {
                  indexOf.set(n, leaves.length);
                  leaves.push(leafHash(entryBytes(n)));
                  expect(positions[i]).toEqual({
                    index: leaves.length - 1,
                    leafHash: leaves.at(-1),
                    appended: true,
                  });
                } else {
                  expect(positions[i]).toEqual({ index: known, leafHash: leaves[known], appended: false });
                }
              });
            }
            expect(await log.size(bdb)).toBe(leaves.length);
            for (let size = 1; size <= leaves.length; size += 1) {
              expect((await log.rootAt(bdb, size)).rootHash).toEqual(rootOf(leaves.slice(0, size)));
            }
            const last = leaves.length - 1;
            expect(await log.inclusionProof(bdb, last, leaves.length)).toEqual(
              inclusionProof(last, leaves.length, subtreeOf(leaves)),
            );
          },
        ),
        { numRuns: 25 },
      );
    } finally {
      await bdb.close();
      await batches.drop();
    }
  });
});

describe('the transparency log on PGlite (the embedded default)', () => {
  it('when entries are appended, then roots and proofs are the same as on PostgreSQL', async () => {
    const lite = await createDatabase({ url: 'pglite://memory' });
    try {
      await runMigrations(lite, [transparencyLogMigrations]);
      const leaves: Hash[] = [];
      for (let i = 0; i < 13; i += 1) {
        const position = await lite.transaction((tx) =>
          log.append(tx, {
            sourceId: `lite_${i}`,
            entry: entryBytes(i),
            parties: ['plat_b'],
            at: new Date(),
          }),
        );
        leaves.push(position.leafHash);
      }
      expect((await log.rootAt(lite)).rootHash).toEqual(rootOf(leaves));
      expect(await log.inclusionProof(lite, 11, 13)).toEqual(inclusionProof(11, 13, subtreeOf(leaves)));
      expect(await log.consistencyProof(lite, 5, 13)).toEqual(consistencyProof(5, 13, subtreeOf(leaves)));
    } finally {
      await lite.close();
    }
  });
});
