import type { Queryable } from '@svc/ports';
import { CatalogueSync } from '../../src/domain/catalogue-sync';
import { IdentityCatalogue } from '../../src/domain/identity-catalogue';
import { IMAGE_MATCH_THRESHOLD } from '../../src/domain/image-matching';
import type { IdentityChange, IdentityStore } from '../../src/domain/ports';

/** A projection whose reads wait until released, counting them. */
function slowProjection() {
  const changes: IdentityChange[] = [];
  const waiting: Array<() => void> = [];
  let reads = 0;
  const store = {
    changesAfter: async (_db: Queryable, after: number, limit: number) => {
      reads += 1;
      // What the read sees is what was committed when it was asked.
      const seen = changes.filter((c) => c.changeSeq > after).slice(0, limit);
      await new Promise<void>((resolve) => waiting.push(resolve));
      return seen;
    },
    referencesOf: async () => new Map(),
  } as unknown as IdentityStore;
  return {
    store,
    reads: () => reads,
    commit: (change: IdentityChange) => changes.push(change),
    /** Lets every read asked so far answer. */
    release: async () => {
      for (;;) {
        const next = waiting.shift();
        if (next === undefined) break;
        next();
      }
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

const removal = (claimId: string, changeSeq: number): IdentityChange => ({
  claimId,
  changeSeq,
  identity: null,
});

describe('CatalogueSync.refresh', () => {
  it('when many refreshes are asked during a pass, then they share one following pass that sees what committed before each was asked', async () => {
    const projection = slowProjection();
    const sync = new CatalogueSync(
      {} as Queryable,
      projection.store,
      new IdentityCatalogue(IMAGE_MATCH_THRESHOLD),
    );
    const first = sync.refresh();
    projection.commit(removal('clm_a', 1));
    // Twenty evaluations arrive while the first pass reads: its read began before clm_a committed.
    const later = Array.from({ length: 20 }, () => sync.refresh());
    await projection.release();
    await first;
    expect(sync.position).toBe(0);
    // One more pass (one read: a short page ends it) serves all twenty, not twenty passes in a row.
    await projection.release();
    await projection.release();
    await Promise.all(later);
    expect(sync.position).toBe(1);
    expect(projection.reads()).toBe(2);
  });

  it('when the running pass fails, then the refreshes waiting on it still get a pass of their own', async () => {
    const projection = slowProjection();
    let fail = true;
    const store = {
      ...projection.store,
      changesAfter: async (db: Queryable, after: number, limit: number) => {
        if (fail) {
          fail = false;
          throw new Error('database is not currently accepting connections');
        }
        return projection.store.changesAfter(db, after, limit);
      },
    } as IdentityStore;
    const sync = new CatalogueSync({} as Queryable, store, new IdentityCatalogue(IMAGE_MATCH_THRESHOLD));
    projection.commit(removal('clm_b', 4));
    const failing = sync.refresh();
    const waiting = sync.refresh();
    await expect(failing).rejects.toThrow('not currently accepting');
    await projection.release();
    await projection.release();
    await projection.release();
    await expect(waiting).resolves.toBe(1);
    expect(sync.position).toBe(4);
  });
});
