import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import type { Queryable } from '@svc/storage';
import { IndexSnapshotFile } from '../../src/data-access/index-snapshot.file';
import { CatalogueSync } from '../../src/domain/catalogue-sync';
import type { IndexedIdentity } from '../../src/domain/identity';
import { IdentityCatalogue } from '../../src/domain/identity-catalogue';
import { loadIdentityIndex, snapshotIdentityIndex } from '../../src/domain/load-identity-index.use-case';
import type { IdentityChange, IdentityStore } from '../../src/domain/ports';

/**
 * The projection as the index reads it: one row per claim, its latest state, re-stamped with the
 * next change_seq on every change (removals are tombstones), as identity.repository does.
 */
class ProjectionFake {
  private seq = 0;
  readonly rows = new Map<string, IdentityChange>();
  constructor(readonly projectionId = 'proj_test') {}

  apply(change: { claimId: string; identity: IndexedIdentity | null }): void {
    this.seq += 1;
    this.rows.set(change.claimId, {
      claimId: change.claimId,
      identity: change.identity,
      changeSeq: this.seq,
    });
  }

  store(): IdentityStore {
    const changesAfter = async (_db: Queryable, after: number, limit: number) =>
      [...this.rows.values()]
        .filter((row) => row.changeSeq > after)
        .sort((a, b) => a.changeSeq - b.changeSeq)
        .slice(0, limit);
    return {
      changesAfter,
      projectionState: async () => ({ projectionId: this.projectionId, lastChangeSeq: this.seq }),
      referencesOf: async () => new Map(),
    } as unknown as IdentityStore;
  }
}

const NAMES = [
  'Taylor Swift',
  'Tay Swift',
  'Lionel Messi',
  'Leo Messi',
  'Björk',
  'Bong Joon-ho',
  'Shah Rukh Khan',
];
const OTHER = ['Ada Lovelace', 'Grace Hopper', 'Emmy Noether', 'Mo Salah', 'Zhang Ziyi'];
const QUERIES = [
  'Taylor Swift',
  'Taylr Swfit',
  'The Real Taylor Swift',
  'Leo Messi AI',
  'Bjork',
  'Bong Joonho',
  'Grace Hoper',
  'Ada Lovelace Official',
  'Zhang Zyi',
  'Shah Rukh Kahn',
  'Emmy',
];

const identityArb = (claimId: string) =>
  fc
    .record({
      name: fc.constantFrom(...NAMES, ...OTHER),
      variations: fc.array(fc.constantFrom(...NAMES, ...OTHER), { maxLength: 2 }),
      boxed: fc.boolean(),
      enforcement: fc.constantFrom('STRICT' as const, 'MODERATE' as const, 'RELAXED' as const),
      boxSuffix: fc.integer({ min: 0, max: 3 }),
    })
    .map((r): IndexedIdentity => ({
      claimId,
      ownerPlatformId: 'plat_owner',
      name: r.name,
      variations: r.variations,
      entityType: 'INDIVIDUAL',
      verificationTier: 'SILVER',
      verifiedAt: new Date('2026-01-01T00:00:00Z'),
      box: r.boxed
        ? {
            boxId: `box_${claimId}_${r.boxSuffix}`,
            policy: 'BLOCK_ALL',
            enforcement: r.enforcement,
            policyConfig: {},
            royaltyRate: 0,
            boxedAt: new Date('2026-01-02T00:00:00Z'),
          }
        : null,
    }));

/** A random change: verify or update (a full state), box changes ride on it, or a removal. */
const changeArb = fc.integer({ min: 1, max: 12 }).chain((n) => {
  const claimId = `claim_${n}`;
  return fc.oneof(
    { weight: 4, arbitrary: identityArb(claimId).map((identity) => ({ claimId, identity })) },
    { weight: 1, arbitrary: fc.constant({ claimId, identity: null as IndexedIdentity | null }) },
  );
});

/** What a replica answers: every query's match and near miss, and the identities it holds. */
function answers(catalogue: IdentityCatalogue) {
  return {
    size: catalogue.size,
    queries: QUERIES.map((q) => {
      const found = catalogue.searchName(q);
      return {
        q,
        hit: found.hit && { id: found.hit.identity.claimId, m: found.hit.match },
        best: found.bestScore,
      };
    }),
    claims: Array.from({ length: 12 }, (_, i) => catalogue.byClaimId(`claim_${i + 1}`) ?? null),
    boxes: Array.from({ length: 12 }, (_, i) =>
      [0, 1, 2, 3].map((s) => catalogue.byBoxId(`box_claim_${i + 1}_${s}`)?.claimId ?? null),
    ),
  };
}

async function replica(projection: ProjectionFake, snapshots: IndexSnapshotFile | null) {
  const catalogue = new IdentityCatalogue(0.9);
  const store = projection.store();
  const sync = new CatalogueSync({} as Queryable, store, catalogue);
  const report = await loadIdentityIndex({
    db: {} as Queryable,
    identities: store,
    catalogue,
    sync,
    snapshots,
  });
  return { catalogue, sync, report };
}

describe('index snapshot: restart from a snapshot and the changes since', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'index-snapshot-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('when a replica restarts from a snapshot plus the changes since, then it answers as a cold rebuild does (random change streams)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(changeArb, { minLength: 1, maxLength: 40 }),
        fc.array(changeArb, { maxLength: 40 }),
        async (before, after) => {
          const file = new IndexSnapshotFile(path.join(dir, `index-${Math.random()}.snapshot`));
          const projection = new ProjectionFake();
          for (const change of before) projection.apply(change);
          const first = await replica(projection, file);
          // The first replica keeps reading changes while it lives: some of `after` before the snapshot.
          const split = Math.floor(after.length / 2);
          for (const change of after.slice(0, split)) projection.apply(change);
          await first.sync.refresh();
          await snapshotIdentityIndex({ ...first, snapshots: file, projectionId: projection.projectionId });
          for (const change of after.slice(split)) projection.apply(change);

          const restarted = await replica(projection, file);
          const cold = await replica(projection, null);
          expect(restarted.report.source).toBe('snapshot');
          expect(restarted.report.changesApplied).toBe(
            [...projection.rows.values()].filter(
              (r) => r.changeSeq > (restarted.report.snapshotChangeSeq ?? 0),
            ).length,
          );
          expect(answers(restarted.catalogue)).toEqual(answers(cold.catalogue));
          // And it keeps up with changes after the restart like any replica.
          projection.apply({ claimId: 'claim_1', identity: null });
          await restarted.sync.refresh();
          await cold.sync.refresh();
          expect(answers(restarted.catalogue)).toEqual(answers(cold.catalogue));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('when the snapshot is missing, corrupt, from another projection or ahead of it, then the index is rebuilt, never loaded', async () => {
    const file = new IndexSnapshotFile(path.join(dir, 'index.snapshot'));
    const projection = new ProjectionFake();
    const identity = (claimId: string, name: string): IndexedIdentity => ({
      claimId,
      ownerPlatformId: 'plat_owner',
      name,
      variations: [],
      entityType: 'INDIVIDUAL',
      verificationTier: 'SILVER',
      verifiedAt: new Date('2026-01-01T00:00:00Z'),
      box: null,
    });
    projection.apply({ claimId: 'claim_a', identity: identity('claim_a', 'Taylor Swift') });
    projection.apply({ claimId: 'claim_b', identity: identity('claim_b', 'Lionel Messi') });

    const missing = await replica(projection, file);
    expect(missing.report).toMatchObject({ source: 'rebuild', rebuildReason: 'missing', identities: 2 });
    await snapshotIdentityIndex({ ...missing, snapshots: file, projectionId: projection.projectionId });
    expect((await replica(projection, file)).report).toMatchObject({ source: 'snapshot', changesApplied: 0 });

    // One flipped byte in the middle: the checksum refuses it.
    const bytes = readFileSync(file.location);
    const flipped = Buffer.from(bytes);
    const at = Math.floor(flipped.length / 2);
    flipped[at] = (flipped[at] ?? 0) ^ 0xff;
    writeFileSync(file.location, flipped);
    const corrupt = await replica(projection, file);
    expect(corrupt.report).toMatchObject({ source: 'rebuild', identities: 2 });
    expect(corrupt.report.rebuildReason).toMatch(/corrupt/);
    writeFileSync(file.location, bytes.subarray(0, bytes.length - 100));
    expect((await replica(projection, file)).report.rebuildReason).toMatch(/corrupt/);

    writeFileSync(file.location, bytes);
    const elsewhere = await replica(new ProjectionFake('proj_other'), file);
    expect(elsewhere.report).toMatchObject({
      source: 'rebuild',
      rebuildReason: 'taken from another projection',
    });

    // A projection behind the snapshot (restored from an older backup): the snapshot is stale.
    const behind = new ProjectionFake();
    behind.apply({ claimId: 'claim_a', identity: identity('claim_a', 'Taylor Swift') });
    const stale = await replica(behind, file);
    expect(stale.report.source).toBe('rebuild');
    expect(stale.report.rebuildReason).toMatch(/^stale/);
    expect(stale.catalogue.byClaimId('claim_b')).toBeUndefined();
  });
});
