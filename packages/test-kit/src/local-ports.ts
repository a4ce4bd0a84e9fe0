import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';

// Free loopback ports for a cluster's processes, and whether a process holds one.

// Ports this process has handed out: the kernel may give the same free port to two bind(0) calls
// in a row (the first server is closed before its port is used), and a cluster picks all its
// ports before it starts any process. Two processes on one port made the gateway's readiness
// answer come from billing (seen in CI: "Invalid internal token" on an admin call).
const handedOut = new Set<number>();

function bindZero(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** `count` free ports (see freePort). */
export async function freePorts(count: number, pick: () => Promise<number> = freePort): Promise<number[]> {
  const ports: number[] = [];
  for (let i = 0; i < count; i += 1) ports.push(await pick());
  return ports;
}

/** A free TCP port on the loopback interface, never one this process has handed out before. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const port = await bindZero();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('no free port that was not handed out already');
}

/**
 * Whether `pid` holds the listening socket of 127.0.0.1/0.0.0.0:`port` (Linux: /proc/net/tcp
 * and the process's descriptors). False for a process that is gone (it holds nothing: a child
 * that lost the port to another process and exited is not ready, though its exit may not have
 * been reported yet). Undefined where /proc cannot tell.
 */
export function listensOn(pid: number, port: number): boolean | undefined {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  try {
    for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
      if (!existsSync(table)) continue;
      for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
        // local_address is ADDR:PORT in hex; state 0A is LISTEN; the inode is the tenth field.
        const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
        if (local?.endsWith(`:${hexPort}`) === true && state === '0A' && inode !== undefined)
          inodes.add(inode);
      }
    }
    if (inodes.size === 0) return false;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode !== undefined && inodes.has(inode)) return true;
    }
    return false;
  } catch {
    return undefined;
  }
}
