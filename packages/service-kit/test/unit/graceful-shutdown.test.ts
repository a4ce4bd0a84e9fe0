import { EventEmitter } from 'node:events';
import { runUntilSignalled, type Stoppable } from '../../src';
import { capturingLogger } from './service.fixture';

/** A stand-in for `process`: signals are emitted by the test, exit codes are recorded. */
function fakeProcess() {
  const emitter = new EventEmitter();
  const codes: number[] = [];
  let onExit: (code: number) => void = () => undefined;
  const exited = new Promise<number>((resolve) => (onExit = resolve));
  const proc = {
    on(event: string, listener: (...args: unknown[]) => void) {
      emitter.on(event, listener);
      return proc;
    },
    exit(code?: number): never {
      codes.push(code ?? 0);
      onExit(code ?? 0);
      return undefined as never;
    },
  };
  return {
    proc: proc as unknown as Pick<NodeJS.Process, 'on' | 'exit'>,
    emit: (s: string) => emitter.emit(s, s),
    codes,
    exited,
  };
}

function part(
  name: string,
  order: string[],
  behaviour: () => Promise<void> = async () => undefined,
): Stoppable {
  return {
    name,
    stop: async () => {
      order.push(`${name}:start`);
      await behaviour();
      order.push(`${name}:done`);
    },
  };
}

describe('runUntilSignalled', () => {
  it('when SIGTERM arrives, then each part stops in order, one after the other, and the process exits 0', async () => {
    const order: string[] = [];
    const { proc, emit, exited } = fakeProcess();
    const slow = () => new Promise<void>((resolve) => setTimeout(resolve, 20));
    runUntilSignalled(
      [part('http', order, slow), part('relay', order), part('bus', order), part('database', order)],
      capturingLogger().logger,
      {
        process: proc,
      },
    );

    expect(order).toEqual([]);
    emit('SIGTERM');

    expect(await exited).toBe(0);
    expect(order).toEqual([
      'http:start',
      'http:done',
      'relay:start',
      'relay:done',
      'bus:start',
      'bus:done',
      'database:start',
      'database:done',
    ]);
  });

  it('when SIGINT arrives, then shutdown runs as for SIGTERM', async () => {
    const order: string[] = [];
    const { proc, emit, exited } = fakeProcess();
    runUntilSignalled([part('http', order)], capturingLogger().logger, { process: proc });

    emit('SIGINT');

    expect(await exited).toBe(0);
    expect(order).toEqual(['http:start', 'http:done']);
  });

  it('when a part fails to stop, then the later parts still stop and the process exits 1', async () => {
    const order: string[] = [];
    const { proc, emit, exited } = fakeProcess();
    const failing = async () => {
      throw new Error('channel closed');
    };
    const { logger, lines } = capturingLogger();
    runUntilSignalled([part('bus', order, failing), part('database', order)], logger, { process: proc });

    emit('SIGTERM');

    expect(await exited).toBe(1);
    expect(order).toEqual(['bus:start', 'database:start', 'database:done']);
    expect(lines.some((line) => line.level === 50 && line.args.includes('bus failed to stop'))).toBe(true);
  });

  it('when stopping takes longer than the deadline, then the process exits 1 at the deadline', async () => {
    const { proc, emit, exited } = fakeProcess();
    const hang = () => new Promise<void>(() => undefined);
    runUntilSignalled([part('http', [], hang)], capturingLogger().logger, { process: proc, deadlineMs: 100 });

    const before = performance.now();
    emit('SIGTERM');

    expect(await exited).toBe(1);
    expect(performance.now() - before).toBeLessThan(1000);
  });

  it('when a second signal arrives during shutdown, then the process exits 1 at once', async () => {
    const { proc, emit, codes, exited } = fakeProcess();
    const hang = () => new Promise<void>(() => undefined);
    runUntilSignalled([part('http', [], hang)], capturingLogger().logger, { process: proc, deadlineMs: 200 });

    emit('SIGTERM');
    emit('SIGINT');

    expect(codes).toEqual([1]);
    // The fake process does not really exit: let the deadline pass so no timer outlives the test.
    await exited;
    await new Promise((resolve) => setTimeout(resolve, 250));
  });
});
