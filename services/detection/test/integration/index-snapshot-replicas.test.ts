import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor } from '@svc/test-kit';
import { ABANDONED_AFTER_MS, IndexSnapshotFile } from '../../src/data-access/index-snapshot.file';
import type { IndexSnapshot } from '../../src/domain/ports';

// The identity index's snapshot writer (issue #34, "Singletons that are not"). It is not a
// singleton by design: each replica writes its own snapshot on its own volume (ADR 0007), and
// within a replica one write follows another. What must hold is that no writer ever leaves a torn
// snapshot where a replica would load it, whoever writes beside it or dies mid-write: a snapshot
// is written to a temporary file of its writer's own and renamed over the last one, so the file
// is always one writer's whole snapshot, and a writer that dies leaves the previous one in place.

/** The writer as `make build` compiled it, for a process of its own to run. */
const COMPILED_WRITER = path.resolve(__dirname, '../../dist/data-access/index-snapshot.file.js');
let dir: string;
let file: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'index-snapshots-'));
  file = path.join(dir, 'identity-index.snapshot');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A snapshot of `megabytes` whose every word is `mark`: whose it is shows in what is loaded. */
function snapshotOf(mark: number, megabytes: number): IndexSnapshot {
  return {
    indexVersion: 7,
    changeSeq: mark,
    projectionId: 'proj_replicas',
    parts: {
      names: new Uint32Array((megabytes * 1024 * 1024) / 4).fill(mark),
      bytes: Buffer.alloc(1024, mark),
    },
  };
}

/** The writer's mark of the snapshot on disk, checked whole (or why it is not usable). */
async function loaded(): Promise<number | string> {
  const read = await new IndexSnapshotFile(file).load();
  if ('problem' in read) return read.problem;
  const { snapshot } = read;
  const names = snapshot.parts.names as Uint32Array;
  const mark = snapshot.changeSeq;
  if (!names.every((word) => word === mark)) return `mixed words in the snapshot of ${mark}`;
  return mark;
}

describe('the index snapshot written by two writers', () => {
  it('when two writers write the same snapshot file at once, again and again, then it always loads as one whole snapshot of one of them', async () => {
    const a = new IndexSnapshotFile(file);
    const b = new IndexSnapshotFile(file);
    for (let round = 1; round <= 8; round += 1) {
      const [first, second] = [2 * round, 2 * round + 1];
      await Promise.all([a.save(snapshotOf(first, 4)), b.save(snapshotOf(second, 4))]);
      expect([first, second]).toContain(await loaded());
    }
    // Nothing is left beside it.
    expect(await readdir(dir)).toEqual(['identity-index.snapshot']);
  });

  it('when a writer is killed in the middle of a write, then the previous snapshot still loads, and the next write replaces it whole', async () => {
    await new IndexSnapshotFile(file).save(snapshotOf(40, 1));
    // Another process writes a 128 MB snapshot (the compiled writer, make build) and is killed
    // (SIGKILL) as soon as its temporary file shows.
    const script = `
      const { IndexSnapshotFile } = require(${JSON.stringify(COMPILED_WRITER)});
      const names = new Uint32Array(32 * 1024 * 1024).fill(41);
      void new IndexSnapshotFile(process.argv[1]).save({
        indexVersion: 7, changeSeq: 41, projectionId: 'proj_replicas', parts: { names, bytes: Buffer.alloc(1024, 41) },
      });`;
    const writer = spawn(process.execPath, ['-e', script, file], { stdio: 'ignore' });
    const exited = new Promise((resolve) => writer.once('exit', resolve));
    try {
      await waitFor(async () => (await readdir(dir)).some((name) => name.endsWith('.tmp')), {
        what: "the other writer's temporary file",
        intervalMs: 2,
        timeoutMs: 10_000,
      });
    } finally {
      writer.kill('SIGKILL');
      await exited;
    }
    expect(await loaded()).toBe(40);
    await new IndexSnapshotFile(file).save(snapshotOf(42, 1));
    expect(await loaded()).toBe(42);
  });

  it("when a dead writer left its temporary file, then a later save removes it, and not a live writer's", async () => {
    await rm(dir, { recursive: true, force: true });
    dir = await mkdtemp(path.join(tmpdir(), 'index-snapshots-'));
    file = path.join(dir, 'identity-index.snapshot');
    // A dead writer's file, untouched for longer than a write takes; one being written right now;
    // and a file of somebody else's that merely looks alike.
    const abandoned = `${path.basename(file)}.4242.0badf00d.tmp`;
    const inProgress = `${path.basename(file)}.4343.feedbeef.tmp`;
    const other = 'notes.4242.0badf00d.tmp';
    for (const name of [abandoned, inProgress, other]) await writeFile(path.join(dir, name), 'x');
    const old = new Date(Date.now() - ABANDONED_AFTER_MS - 60_000);
    for (const name of [abandoned, other]) await utimes(path.join(dir, name), old, old);

    await new IndexSnapshotFile(file).save(snapshotOf(43, 1));
    expect(await loaded()).toBe(43);
    expect((await readdir(dir)).sort()).toEqual(['identity-index.snapshot', inProgress, other].sort());
  });
});
