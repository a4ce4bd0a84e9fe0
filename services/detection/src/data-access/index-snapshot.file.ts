import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { systemClock, type Clock } from '@svc/clock';
import { markOwned } from '@svc/name-matching';
import type { IndexSnapshot, IndexSnapshotStore, SnapshotRead } from '../domain/ports';

const MAGIC = Buffer.from('SVCIDX\0\x02', 'latin1');
/** The file's own layout; the index's layout has its own version (`indexVersion`). */
const FILE_FORMAT = 2;
const ALIGN = 8;
const HASH_BYTES = 4;
/** Room left after each section read back, so the first changes do not copy it whole. */
const HEADROOM = 1.125;

interface SectionHeader {
  name: string;
  kind: 'u32' | 'bytes';
  bytes: number;
}

interface Header {
  format: number;
  indexVersion: number;
  changeSeq: number;
  projectionId: string;
  sections: SectionHeader[];
}

/**
 * A temporary file untouched this long was left by a writer that died mid-write (a snapshot of a
 * million identities is written in seconds, each chunk touching the file): swept by the next save.
 */
export const ABANDONED_AFTER_MS = 10 * 60 * 1000;

const padTo = (n: number): number => (ALIGN - (n % ALIGN)) % ALIGN;

/** A running CRC-32 (zlib's, seeded with the value so far). */
class Crc32 {
  private value = 0;
  update(chunk: Buffer): void {
    // zlib answers its initial value (0) for an empty buffer with no memory behind it: skip those.
    if (chunk.length > 0) this.value = crc32(chunk, this.value);
  }
  digest(): Buffer {
    const out = Buffer.alloc(HASH_BYTES);
    out.writeUInt32LE(this.value >>> 0);
    return out;
  }
}

/**
 * The index snapshot as one file on the pod (INDEX_SNAPSHOT_PATH): a JSON header (file format,
 * index version, the projection's change_seq it covers, the projection's id), the index's arrays
 * end to end, and a CRC-32 of everything before it (zlib's: it catches a torn or damaged file at
 * twice the speed of SHA-256, and the file never leaves the pod, so there is no forger to resist). Written to a temporary file and renamed, so a
 * reader sees a whole snapshot or none; read section by section straight into the arrays the
 * index keeps (no second copy). Anything that does not check out is reported, never loaded.
 */
export class IndexSnapshotFile implements IndexSnapshotStore {
  constructor(
    private readonly file: string,
    /** What a file's modification time is set against (file times are the host's: the system clock). */
    private readonly clock: Clock = systemClock,
  ) {}

  get location(): string {
    return this.file;
  }

  async save(snapshot: IndexSnapshot): Promise<number> {
    await mkdir(path.dirname(this.file), { recursive: true });
    await this.sweepAbandoned();
    const sections = Object.entries(snapshot.parts).map(([name, data]) => ({
      name,
      kind: (Buffer.isBuffer(data) ? 'bytes' : 'u32') as SectionHeader['kind'],
      data: Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength),
    }));
    const header: Header = {
      format: FILE_FORMAT,
      indexVersion: snapshot.indexVersion,
      changeSeq: snapshot.changeSeq,
      projectionId: snapshot.projectionId,
      sections: sections.map((s) => ({ name: s.name, kind: s.kind, bytes: s.data.length })),
    };
    const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
    const lead = Buffer.alloc(MAGIC.length + 4);
    MAGIC.copy(lead);
    lead.writeUInt32LE(headerBytes.length, MAGIC.length);
    const temporary = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    const handle = await open(temporary, 'w');
    const hash = new Crc32();
    let written = 0;
    const write = async (chunk: Buffer): Promise<void> => {
      hash.update(chunk);
      await handle.write(chunk);
      written += chunk.length;
    };
    try {
      await write(lead);
      await write(headerBytes);
      await write(Buffer.alloc(padTo(lead.length + headerBytes.length)));
      for (const section of sections) {
        await write(section.data);
        await write(Buffer.alloc(padTo(section.data.length)));
      }
      await handle.write(hash.digest());
      await handle.sync();
    } catch (err) {
      await handle.close();
      await rm(temporary, { force: true });
      throw err;
    }
    await handle.close();
    await rename(temporary, this.file);
    return written + HASH_BYTES;
  }

  /**
   * Removes the temporary files of writers that died mid-write (a kill, an OOM): each is as large as
   * a snapshot, and nothing else would ever remove it. Another writer's file in progress is recent.
   */
  private async sweepAbandoned(): Promise<void> {
    const directory = path.dirname(this.file);
    const prefix = `${path.basename(this.file)}.`;
    const now = this.clock.now().getTime();
    for (const name of await readdir(directory)) {
      if (!name.startsWith(prefix) || !/^\d+\.[0-9a-f]{8}\.tmp$/.test(name.slice(prefix.length))) continue;
      const file = path.join(directory, name);
      const modified = await stat(file).then(
        (s) => s.mtimeMs,
        () => now,
      );
      if (now - modified > ABANDONED_AFTER_MS) await rm(file, { force: true });
    }
  }

  async load(): Promise<SnapshotRead> {
    let handle;
    try {
      handle = await open(this.file, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { problem: 'missing' };
      throw err;
    }
    try {
      const size = (await handle.stat()).size;
      const hash = new Crc32();
      let position = 0;
      const readExactly = async (target: Buffer): Promise<boolean> => {
        let done = 0;
        while (done < target.length) {
          const { bytesRead } = await handle.read(target, done, target.length - done, position + done);
          if (bytesRead === 0) return false;
          done += bytesRead;
        }
        position += target.length;
        return true;
      };
      const lead = Buffer.alloc(MAGIC.length + 4);
      if (!(await readExactly(lead)) || !lead.subarray(0, MAGIC.length).equals(MAGIC))
        return { problem: 'corrupt: not a snapshot' };
      hash.update(lead);
      const headerLength = lead.readUInt32LE(MAGIC.length);
      if (headerLength > size) return { problem: 'corrupt: header length' };
      const headerBytes = Buffer.alloc(headerLength);
      if (!(await readExactly(headerBytes))) return { problem: 'corrupt: truncated header' };
      hash.update(headerBytes);
      let header: Header;
      try {
        header = JSON.parse(headerBytes.toString('utf8')) as Header;
      } catch {
        return { problem: 'corrupt: header' };
      }
      if (header.format !== FILE_FORMAT)
        return { problem: `file format ${header.format}, expected ${FILE_FORMAT}` };
      const expectedSize =
        position +
        padTo(lead.length + headerLength) +
        header.sections.reduce((sum, s) => sum + s.bytes + padTo(s.bytes), 0) +
        HASH_BYTES;
      if (expectedSize !== size) return { problem: `corrupt: ${size} bytes, header says ${expectedSize}` };
      const padding = Buffer.alloc(ALIGN);
      const paddingOf = (n: number): Buffer => padding.subarray(0, n);
      let offset = position + padTo(lead.length + headerLength);
      hash.update(paddingOf(padTo(lead.length + headerLength)));
      const parts: IndexSnapshot['parts'] = {};
      // Each section's place is known from the header: the next one is read (in libuv's threads)
      // while this one's checksum is computed here, which halves the wall time of a large load.
      const reads = header.sections.map((section) => {
        const at = offset;
        offset += section.bytes + padTo(section.bytes);
        return { section, at };
      });
      const readSection = async ({ section, at }: { section: SectionHeader; at: number }) => {
        // Its own memory with room to grow: the index keeps it as it is (compact-tables, OWNED).
        const room = Math.ceil((section.bytes * HEADROOM) / ALIGN) * ALIGN + 4096;
        const memory = new ArrayBuffer(room);
        markOwned(memory);
        const bytes = Buffer.from(memory, 0, section.bytes);
        let done = 0;
        while (done < bytes.length) {
          const { bytesRead } = await handle.read(bytes, done, bytes.length - done, at + done);
          if (bytesRead === 0) return null;
          done += bytesRead;
        }
        return { memory, bytes };
      };
      let pending = reads[0] ? readSection(reads[0]) : Promise.resolve(null);
      for (let k = 0; k < reads.length; k++) {
        const { section } = reads[k] as { section: SectionHeader };
        const read = await pending;
        const following = reads[k + 1];
        pending = following ? readSection(following) : Promise.resolve(null);
        if (!read) {
          await pending.catch(() => undefined);
          return { problem: 'corrupt: truncated' };
        }
        hash.update(read.bytes);
        hash.update(paddingOf(padTo(section.bytes)));
        parts[section.name] =
          section.kind === 'bytes' ? read.bytes : new Uint32Array(read.memory, 0, section.bytes / 4);
      }
      position = offset;
      const stored = Buffer.alloc(HASH_BYTES);
      if (!(await readExactly(stored)) || !stored.equals(hash.digest()))
        return { problem: 'corrupt: checksum does not match' };
      return {
        snapshot: {
          indexVersion: header.indexVersion,
          changeSeq: header.changeSeq,
          projectionId: header.projectionId,
          parts,
        },
        bytes: size,
      };
    } finally {
      await handle.close();
    }
  }
}
