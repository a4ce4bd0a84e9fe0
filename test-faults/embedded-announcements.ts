import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDatabase } from '@svc/storage';
import { announcementsSql } from './enrolment-fault';

// The embedded default holds its PGlite files while it runs; once it has stopped, the suite reads
// detection's outbox from a copy of its directory (PGlite opens a directory read-write and runs
// recovery on it: the copy leaves the data directory as the process left it, for a post-mortem).

/** Detection's announcements of a claim's pictures, read from the embedded default's data directory. */
export interface EmbeddedAnnouncements {
  /** `detection.reference_image.enrolled` rows per image. */
  perImage: { image: string; n: number }[];
  /** Of those, the rows committed before `before` (the kill): what detection had enrolled by then. */
  before: number;
}

/**
 * Reads detection's outbox under DATA_DIR/detection (the embedded default's layout: one PGlite
 * directory per service, no extension loaded; `embeddedService` in @svc/service-runtime). Only
 * once the process has stopped: PGlite is one process's.
 */
export async function embeddedAnnouncements(
  dataDir: string,
  claimId: string,
  before: Date,
): Promise<EmbeddedAnnouncements> {
  const copy = mkdtempSync(path.join(tmpdir(), 'svc-faults-detection-'));
  try {
    cpSync(path.join(dataDir, 'detection'), path.join(copy, 'detection'), { recursive: true });
    const db = await createDatabase({ url: `pglite://${path.join(copy, 'detection')}` });
    try {
      const { rows } = await db.query<{ image: string; n: number }>(announcementsSql(claimId));
      const early = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM outbox
          WHERE type = 'detection.reference_image.enrolled' AND payload->'data'->>'claimId' = $1
            AND created_at < $2`,
        [claimId, before.toISOString()],
      );
      return {
        perImage: rows.map((row) => ({ image: String(row.image), n: Number(row.n) })),
        before: Number(early.rows[0]?.n ?? 0),
      };
    } finally {
      await db.close();
    }
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}
