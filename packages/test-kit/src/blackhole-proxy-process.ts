import { fork } from 'node:child_process';
import path from 'node:path';
import type { ProxyCommand } from './blackhole-proxy-child';

/** A blackhole proxy (./blackhole-proxy.ts) in a process of its own; each change is acknowledged. */
export interface BlackholeProxyProcess {
  /** Where clients connect instead of the target. */
  port: number;
  /** From when this resolves, nothing flows on any connection, old or new; none is closed. */
  blackhole(): Promise<void>;
  /** From when this resolves, new connections flow again; the blackholed ones stay dead. */
  heal(): Promise<void>;
  close(): Promise<void>;
}

const STARTS_WITHIN_MS = 10_000;
const ANSWERS_WITHIN_MS = 10_000;

/**
 * A blackhole proxy in a child process, for links of processes other than the test's own (the
 * fault suite's services): the bytes of their database and broker links must not wait for the
 * test process's event loop, which runs the workload and its checks; under load that loop can
 * hold a link's bytes for seconds, a stall no deployment has. Runs the compiled proxy
 * (`dist/blackhole-proxy-child.js`): the tree must be built.
 */
export async function startBlackholeProxyProcess(target: {
  host: string;
  port: number;
}): Promise<BlackholeProxyProcess> {
  const entry = path.resolve(__dirname, '..', 'dist', 'blackhole-proxy-child.js');
  const child = fork(entry, [target.host, String(target.port)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<number, () => void>();
  let next = 0;
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the proxy to ${target.port} did not start`)),
      STARTS_WITHIN_MS,
    );
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the proxy to ${target.port} exited (${code})`)));
    child.on('message', (message: { port?: number; done?: number }) => {
      if (message.port !== undefined) {
        clearTimeout(timer);
        resolve(message.port);
      }
      if (message.done !== undefined) waiting.get(message.done)?.();
    });
  });
  const ask = (command: ProxyCommand['command']): Promise<void> => {
    if (!child.connected) return Promise.resolve();
    const id = ++next;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`the proxy to ${target.port} did not ${command} within ${ANSWERS_WITHIN_MS} ms`));
      }, ANSWERS_WITHIN_MS);
      waiting.set(id, () => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve();
      });
      child.send({ id, command } satisfies ProxyCommand);
    });
  };
  return {
    port,
    blackhole: () => ask('blackhole'),
    heal: () => ask('heal'),
    close: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      await ask('close').catch(() => child.kill('SIGKILL'));
      const timer = setTimeout(() => child.kill('SIGKILL'), ANSWERS_WITHIN_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}
