import type { IndexKnowledge } from '@svc/contracts/detection';
import type { Queryable } from '@svc/ports';
import type { Avatar, EvaluationStatus } from './avatar';
import type { Page } from './page.ports';

// The avatars a platform reported, and how a scan pages through them.

export interface AvatarStore {
  /**
   * Writes the avatar. A held evaluation lease is released, unless `holdEvaluationUntil` takes it
   * (the reporting request holds its own change while it asks detection, so that the evaluation
   * worker does not ask about it too).
   */
  insert(tx: Queryable, avatar: Avatar, holdEvaluationUntil?: Date): Promise<void>;
  update(tx: Queryable, avatar: Avatar, holdEvaluationUntil?: Date): Promise<void>;
  /** The platform's avatar by its own id, deleted ones too. */
  find(
    q: Queryable,
    platformId: string,
    avatarId: string,
    options?: { lock?: boolean },
  ): Promise<Avatar | null>;
  findByRef(q: Queryable, ref: string, options?: { lock?: boolean }): Promise<Avatar | null>;
  findManyByRef(q: Queryable, refs: string[]): Promise<Map<string, Avatar>>;
  list(
    q: Queryable,
    filter: Page & {
      platformId: string;
      evaluation?: EvaluationStatus | undefined;
      creatorId?: string | undefined;
    },
  ): Promise<{ items: Avatar[]; total: number }>;
  /** Pending evaluations that are due, leased until `leaseUntil` (skipping ones another replica holds). */
  leaseDueEvaluations(tx: Queryable, now: Date, leaseUntil: Date, limit: number): Promise<Avatar[]>;
  /**
   * The platform's reported avatars whose last evaluation matched `boxId` become pending again, due
   * at `dueAt` (the evaluation worker asks detection about them); returns how many.
   */
  reevaluateMatching(tx: Queryable, platformId: string, boxId: string, dueAt: Date): Promise<number>;
  /**
   * Records that an answer about the avatar is being applied, and says whether it is fresh: false
   * (nothing recorded) when an applied answer knew more (a further position of the same
   * projection), or, when that cannot be told, was asked later.
   */
  recordAnswer(tx: Queryable, ref: string, asked: AskedAt): Promise<boolean>;
  /**
   * Reported avatars of every platform after `afterSeq`, in seq order; with `only`, those that can
   * match the box (their match keys meet its identity's, they carry a picture, or their keys were
   * made by other rules than `only.version`). `passed`: the avatars the page covers, those left out
   * by `only` included (up to its last avatar, or every one after `afterSeq` when it is empty).
   */
  scanPage(q: Queryable, afterSeq: number, limit: number, only?: ScanFilter): Promise<ScanPage>;
  /** Gives up to `limit` avatars whose match keys were made by older rules (or none) today's; returns how many. */
  fillMatchKeys(q: Queryable, limit: number): Promise<number>;
}

/** When a question was asked of detection, and how far its answer's index had read (when told). */
export interface AskedAt {
  at: Date;
  knowledge?: IndexKnowledge | undefined;
}

export interface ScanPage {
  avatars: { avatar: Avatar; seq: number }[];
  passed: number;
}

/** What a box's identity is matched by (detection's answer before a scan, issue #34). */
export interface ScanFilter {
  version: number;
  keys: number[];
}
