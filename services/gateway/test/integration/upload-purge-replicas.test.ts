import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ManualClock } from '@svc/clock';
import { createLogger } from '@svc/logger';
import { createDatabase, runMigrations, type Database } from '@svc/storage';
import { freshPostgresDatabase, waitFor } from '@svc/test-kit';
import { gatewayMigrations } from '../../src';
import { FileUploadFiles } from '../../src/adapters/file-upload-files';
import { UploadRepository } from '../../src/data-access/upload.repository';
import type { UploadFiles } from '../../src/domain/account-ports';
import { purgeUnreferencedUploads, type PurgeUploadsDeps } from '../../src/domain/purge-uploads.use-case';

// The purge of uploads no claim names, on two gateway replicas (issue #34, "Singletons that are
// not"). It holds no lock and no lease: each step is idempotent (a file removed, rows deleted by
// id), so two replicas purging at once delete each upload once in effect, and there is nothing
// to fence (a replica cut off from the database deletes nothing; one cut off from the registry
// keeps everything). What must hold is that a purge that dies half-way is finished by the next
// pass of any replica: with UPLOAD_DIR (the embedded default, or a shared directory) nothing of
// an unnamed upload may be left behind. The replicas here are two purges, each with its own pool.

const DAY = 86_400_000;
let database: { url: string; drop(): Promise<void> };
let setup: Database;
let dir: string;
const pools: Database[] = [];
const clock = new ManualClock('2026-12-01T09:00:00.000Z');
const uploads = new UploadRepository();
const logger = createLogger('test', { level: 'silent' });
/** What the registry answers: the uploads a claim names. */
const named = new Set<string>();

beforeAll(async () => {
  database = await freshPostgresDatabase('upload_purge_replicas');
  setup = await createDatabase({ url: database.url });
  await runMigrations(setup, gatewayMigrations());
  dir = await mkdtemp(path.join(tmpdir(), 'upload-purge-'));
  await setup.query(
    `INSERT INTO platforms (id, name, plan, created_at) VALUES ('plat_purge', 'Purge', 'basic', now())`,
  );
  await setup.query(
    `INSERT INTO accounts (id, email, password_hash, role, name, platform_id, created_at)
     VALUES ('acct_purge', 'purge@example.com', 'x', 'platform', 'Purge', 'plat_purge', now())`,
  );
});
afterAll(async () => {
  for (const pool of pools) await pool.close();
  await setup.close();
  await database.drop();
  await rm(dir, { recursive: true, force: true });
});

let uploadsMade = 0;
/** `count` uploads (files in UPLOAD_DIR) a day and a half old, every other one named by a claim. */
async function dayOldUploads(count: number): Promise<{ named: string[]; unnamed: string[] }> {
  const files = new FileUploadFiles(dir);
  const made = { named: [] as string[], unnamed: [] as string[] };
  for (let i = 0; i < count; i += 1) {
    uploadsMade += 1;
    const id = `up${String(uploadsMade).padStart(22, '0')}`;
    await files.write(id, Buffer.from(`picture ${id}`));
    await uploads.insert(setup, {
      id,
      platformId: 'plat_purge',
      accountId: 'acct_purge',
      contentType: 'image/png',
      sizeBytes: 16,
      bytes: null,
      createdAt: new Date(clock.now().getTime() - 1.5 * DAY),
    });
    if (i % 2 === 0) {
      named.add(id);
      made.named.push(id);
    } else made.unnamed.push(id);
  }
  return made;
}

async function replica(files: UploadFiles = new FileUploadFiles(dir)): Promise<PurgeUploadsDeps> {
  const db = await createDatabase({ url: database.url, maxConnections: 2 });
  pools.push(db);
  return {
    db,
    uploads,
    uploadFiles: files,
    clock,
    logger,
    referencedUploads: async (_platformId, ids) => ids.filter((id) => named.has(id)),
  };
}

/** Which of `ids` still have their row, and which their file. */
async function left(ids: string[]): Promise<{ rows: string[]; files: string[] }> {
  const { rows } = await setup.query<{ id: string }>(
    'SELECT id FROM dashboard_uploads WHERE id = ANY($1::text[]) ORDER BY id',
    [ids],
  );
  return { rows: rows.map((row) => row.id), files: ids.filter((id) => existsSync(path.join(dir, id))) };
}

describe('the upload purge on two replicas', () => {
  it('when both replicas purge at once, again and again, then every unnamed upload is gone, row and file, and every named one is whole', async () => {
    const made = await dayOldUploads(16);
    const a = await replica();
    const b = await replica();
    for (let round = 0; round < 3; round += 1) {
      await Promise.all([a, b, a, b].map((deps) => purgeUnreferencedUploads(deps, DAY)));
    }
    expect(await left(made.unnamed)).toEqual({ rows: [], files: [] });
    expect(await left(made.named)).toEqual({ rows: made.named, files: made.named });
  });

  it('when the replica purging dies half-way, then the next pass of the other leaves nothing of an unnamed upload behind', async () => {
    const made = await dayOldUploads(8);
    // Replica a removes one file and dies removing the next.
    const files = new FileUploadFiles(dir);
    let removed = 0;
    const dying = await replica({
      write: (id, bytes) => files.write(id, bytes),
      read: (id) => files.read(id),
      remove: async (id) => {
        removed += 1;
        if (removed === 2) await new Promise<void>(() => undefined);
        await files.remove(id);
      },
    });
    void purgeUnreferencedUploads(dying, DAY);
    await waitFor(() => removed === 2, { what: 'replica a dying in the middle of its purge' });
    await purgeUnreferencedUploads(await replica(), DAY);
    expect(await left(made.unnamed)).toEqual({ rows: [], files: [] });
    expect(await left(made.named)).toEqual({ rows: made.named, files: made.named });
  });
});
