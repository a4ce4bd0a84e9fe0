import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { UploadFiles } from '../domain/account-ports';

const ID = /^[A-Za-z0-9_-]{24}$/;

/**
 * Upload bytes as files under one directory (UPLOAD_DIR; the embedded default's data directory):
 * written to a temporary name and renamed, so a reader never sees half a picture. Every file
 * operation is asynchronous, off the event loop, where PGlite would have stored 5 MiB on it.
 */
export class FileUploadFiles implements UploadFiles {
  private ready: Promise<void> | undefined;

  constructor(private readonly dir: string) {}

  private fileOf(id: string): string {
    if (!ID.test(id)) throw new Error(`not an upload id: ${id}`);
    return path.join(this.dir, id);
  }

  async write(id: string, bytes: Buffer): Promise<void> {
    this.ready ??= mkdir(this.dir, { recursive: true }).then(() => undefined);
    await this.ready;
    const file = this.fileOf(id);
    const temporary = `${file}.${randomBytes(6).toString('hex')}.partial`;
    await writeFile(temporary, bytes);
    await rename(temporary, file);
  }

  async read(id: string): Promise<Buffer | null> {
    try {
      return await readFile(this.fileOf(id));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async remove(id: string): Promise<void> {
    await rm(this.fileOf(id), { force: true });
  }
}
