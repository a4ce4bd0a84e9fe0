import type { Queryable } from '@svc/ports';
import type { CatalogueSync } from './catalogue-sync';
import type { IdentityCatalogue } from './identity-catalogue';
import { CATALOGUE_VERSION } from './identity-catalogue';
import type { IdentityStore, IndexSnapshotStore } from './ports';

/** What a replica's start did to have its index. */
export interface IndexLoadReport {
  /** 'snapshot': loaded it, then the changes after it; 'rebuild': read the whole projection. */
  source: 'snapshot' | 'rebuild';
  /** Why no snapshot was used (missing, corrupt, another version or database, stale). */
  rebuildReason?: string;
  snapshotChangeSeq?: number;
  snapshotBytes?: number;
  /** Changes read from the projection (all of it on a rebuild). */
  changesApplied: number;
  identities: number;
  ms: number;
}

export interface IndexLoadDeps {
  db: Queryable;
  identities: IdentityStore;
  catalogue: IdentityCatalogue;
  sync: CatalogueSync;
  snapshots: IndexSnapshotStore | null;
  /** Hears the changes applied so far (for progress logs). */
  progress?: (applied: number) => void;
}

/**
 * Start-up: the snapshot when it checks out (its checksum, file and index versions, this very
 * projection, and a change_seq the projection has reached), then only the changes after it;
 * otherwise the whole projection is read (a rebuild). No refresh runs beside it.
 */
export function loadIdentityIndex(deps: IndexLoadDeps): Promise<IndexLoadReport> {
  let report: IndexLoadReport | undefined;
  return deps.sync
    .exclusively(async () => {
      report = await load(deps);
      return report.changesApplied;
    })
    .then(() => report as IndexLoadReport);
}

async function load(deps: IndexLoadDeps): Promise<IndexLoadReport> {
  const started = performance.now();
  const { projectionId, lastChangeSeq } = await deps.identities.projectionState(deps.db);
  let rebuildReason: string | undefined = 'snapshots are off';
  let snapshotChangeSeq: number | undefined;
  let snapshotBytes: number | undefined;
  if (deps.snapshots) {
    const read = await deps.snapshots.load();
    if ('problem' in read) rebuildReason = read.problem;
    else if (read.snapshot.indexVersion !== CATALOGUE_VERSION)
      rebuildReason = `index version ${read.snapshot.indexVersion}, expected ${CATALOGUE_VERSION}`;
    else if (read.snapshot.projectionId !== projectionId) rebuildReason = 'taken from another projection';
    else if (read.snapshot.changeSeq > lastChangeSeq)
      rebuildReason = `stale: covers change ${read.snapshot.changeSeq}, the projection is at ${lastChangeSeq}`;
    else {
      try {
        deps.catalogue.restore(read.snapshot.parts);
        deps.sync.continueFrom(read.snapshot.changeSeq);
        rebuildReason = undefined;
        snapshotChangeSeq = read.snapshot.changeSeq;
        snapshotBytes = read.bytes;
      } catch (err) {
        // A snapshot that passed its checksum but does not fit this code: rebuild from scratch.
        deps.catalogue.restore({});
        deps.sync.continueFrom(0);
        rebuildReason = `unreadable: ${(err as Error).message}`;
      }
    }
  }
  const changesApplied = await deps.sync.readChanges(deps.progress);
  // Lookups read runs of memory, not chains (ADR 0007); the snapshot written next is packed too.
  deps.catalogue.packNames();
  deps.catalogue.packFaces();
  return {
    source: rebuildReason === undefined ? 'snapshot' : 'rebuild',
    ...(rebuildReason === undefined ? {} : { rebuildReason }),
    ...(snapshotChangeSeq === undefined ? {} : { snapshotChangeSeq }),
    ...(snapshotBytes === undefined ? {} : { snapshotBytes }),
    changesApplied,
    identities: deps.catalogue.size,
    ms: Math.round(performance.now() - started),
  };
}

/** Writes the catalogue as it is now, with the change it covers; returns the bytes written. */
export function snapshotIdentityIndex(deps: {
  catalogue: IdentityCatalogue;
  sync: CatalogueSync;
  snapshots: IndexSnapshotStore;
  projectionId: string;
}): Promise<{ changeSeq: number; bytes: number }> {
  // Taken in one synchronous step: the arrays and the position agree (appends go past the views).
  const changeSeq = deps.sync.position;
  const parts = deps.catalogue.parts();
  return deps.snapshots
    .save({ indexVersion: CATALOGUE_VERSION, changeSeq, projectionId: deps.projectionId, parts })
    .then((bytes) => ({ changeSeq, bytes }));
}
