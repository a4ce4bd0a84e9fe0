import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { sleep } from '@svc/test-kit';

// The broker-restart test stops the machine's RabbitMQ; the other messaging test files run in
// parallel jest workers. A readers-writer lock made of files keeps them apart: every file that
// uses the broker holds it shared, the restart test holds it alone.
const DIR = path.join(tmpdir(), 'svc-messaging-broker-lock');
const WAIT_MS = 150_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Holders of one kind whose process still runs; files left by dead processes are removed. */
function holders(kind: 'reader' | 'writer', except?: string): string[] {
  return readdirSync(DIR).filter((file) => {
    if (!file.startsWith(`${kind}-`) || file === except) return false;
    const pid = Number(file.split('-')[1]);
    if (alive(pid)) return true;
    rmSync(path.join(DIR, file), { force: true });
    return false;
  });
}

function take(kind: 'reader' | 'writer', label: string): string {
  const file = `${kind}-${process.pid}-${randomBytes(4).toString('hex')}-${label.replace(/[^a-z0-9]/gi, '_')}`;
  writeFileSync(path.join(DIR, file), '');
  return file;
}

function releaser(file: string): () => Promise<void> {
  return async () => rmSync(path.join(DIR, file), { force: true });
}

/** Waits while the broker is being restarted, then holds it shared until released. */
export async function holdBrokerShared(label: string): Promise<() => Promise<void>> {
  mkdirSync(DIR, { recursive: true });
  const deadline = performance.now() + WAIT_MS;
  for (;;) {
    if (holders('writer').length === 0) {
      const file = take('reader', label);
      if (holders('writer').length === 0) return releaser(file);
      rmSync(path.join(DIR, file), { force: true });
    }
    if (performance.now() > deadline) throw new Error('The broker stayed locked by a restart test');
    await sleep(200);
  }
}

/** Waits until no other test uses the broker, then holds it alone until released. */
export async function holdBrokerExclusive(label: string): Promise<() => Promise<void>> {
  mkdirSync(DIR, { recursive: true });
  const deadline = performance.now() + WAIT_MS;
  while (holders('writer').length > 0) {
    if (performance.now() > deadline) throw new Error('Another broker restart test is running');
    await sleep(200);
  }
  const file = take('writer', label);
  while (holders('reader').length > 0) {
    if (performance.now() > deadline) {
      rmSync(path.join(DIR, file), { force: true });
      throw new Error('Other tests kept using the broker');
    }
    await sleep(200);
  }
  return releaser(file);
}
