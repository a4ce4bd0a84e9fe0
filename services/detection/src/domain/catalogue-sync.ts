import { FACE_MODEL } from '@svc/face-engine';
import { fingerprintFromHex } from '@svc/image-fingerprint';
import type { Queryable } from '@svc/ports';
import type { IdentityCatalogue } from './identity-catalogue';
import type { IdentityStore } from './ports';

const PAGE = 5_000;

/**
 * Reads the projection's changes (in change_seq order) into this replica's catalogue: all of it
 * on start, then what changed since. Every replica runs one, so a change applied by the replica
 * that consumed the event reaches the others within one sync interval.
 */
export class CatalogueSync {
  private lastSeq = 0;
  private running: Promise<number> | undefined;
  /** The pass that follows the running one, shared by every refresh asked while it runs. */
  private next: Promise<number> | undefined;

  constructor(
    private readonly db: Queryable,
    private readonly identities: IdentityStore,
    private readonly catalogue: IdentityCatalogue,
  ) {}

  /** The last change read. */
  get position(): number {
    return this.lastSeq;
  }

  /** Reads every change committed before this call; `progress` hears the count after each page. */
  refresh(progress?: (applied: number) => void): Promise<number> {
    // A pass under way may have started before the caller's change committed: wait, then read
    // again. Every caller arriving meanwhile shares that one next pass (full evaluations refresh
    // first, so under load many wait at once; one query answers them all).
    if (this.running) {
      this.next ??= this.running
        .catch(() => 0)
        .then(() => {
          this.next = undefined;
          return this.refresh(progress);
        });
      return this.next;
    }
    return this.exclusively(() => this.pass(progress));
  }

  /**
   * Runs `load` with no pass beside it (a refresh asked meanwhile waits for it); `load` may
   * restore the catalogue from a snapshot and call `continueFrom` before reading what follows.
   */
  exclusively<T extends number>(load: () => Promise<T>): Promise<T> {
    const running = load().finally(() => {
      this.running = undefined;
    });
    this.running = running;
    return running;
  }

  /** The catalogue now holds every change up to `changeSeq` (a snapshot's): read on from there. */
  continueFrom(changeSeq: number): void {
    this.lastSeq = changeSeq;
  }

  /** One pass outside `refresh`, for a load already running exclusively. */
  readChanges(progress?: (applied: number) => void): Promise<number> {
    return this.pass(progress);
  }

  private async pass(progress?: (applied: number) => void): Promise<number> {
    let applied = 0;
    for (;;) {
      const changes = await this.identities.changesAfter(this.db, this.lastSeq, PAGE);
      if (changes.length === 0) return applied;
      const present = changes.filter((c) => c.identity !== null).map((c) => c.claimId);
      const stored = await this.identities.referencesOf(this.db, present, FACE_MODEL);
      for (const change of changes) {
        if (change.identity === null) this.catalogue.remove(change.claimId);
        else {
          const references = stored.get(change.claimId) ?? [];
          this.catalogue.put(
            change.identity,
            references.flatMap((r) =>
              r.hex === null ? [] : [{ imageId: r.imageId, fingerprint: fingerprintFromHex(r.hex) }],
            ),
            references.flatMap((r) => (r.face === null ? [] : [{ imageId: r.imageId, descriptor: r.face }])),
          );
        }
        this.lastSeq = Math.max(this.lastSeq, change.changeSeq);
      }
      applied += changes.length;
      progress?.(applied);
      if (changes.length < PAGE) return applied;
    }
  }
}
