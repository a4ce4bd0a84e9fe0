import { spawn } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';

// A PostgreSQL restart sends every session FATAL 57P01. When a session has just been opened, its
// ReadyForQuery and that goodbye can reach the client in one read: node-postgres hands the client
// out on the first and emits 'error' on the second before the borrower's `await pool.connect()`
// resumes. This fake server sends exactly that, in one write, to every connection.

function message(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'ascii');
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

function readyThenGoodbye(): Buffer {
  const authOk = message('R', Buffer.from([0, 0, 0, 0]));
  const ready = message('Z', Buffer.from('I', 'ascii'));
  const fields = [
    ['S', 'FATAL'],
    ['V', 'FATAL'],
    ['C', '57P01'],
    ['M', 'terminating connection due to administrator command'],
  ]
    .map(([key, value]) => `${key}${value}\0`)
    .join('');
  const goodbye = message('E', Buffer.from(`${fields}\0`, 'utf8'));
  return Buffer.concat([authOk, ready, goodbye]);
}

let server: Server;
let port = 0;
const sockets = new Set<Socket>();

beforeAll(async () => {
  server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    // The startup message comes first; answer it with the session's first and last words.
    socket.once('data', () => socket.end(readyThenGoodbye()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  port = typeof address === 'object' && address !== null ? address.port : 0;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** Runs `body` in a fresh Node process with `db` open on the fake server; resolves with its exit and output. */
function inChildProcess(body: string): Promise<{ code: number | null; output: string }> {
  const storage = path.resolve(__dirname, '../../dist/index.js');
  const errors = path.resolve(__dirname, '../../../errors/dist/index.js');
  const script = `
    const { PostgresDatabase } = require(${JSON.stringify(storage)});
    const { isTransientFailure } = require(${JSON.stringify(errors)});
    (async () => {
      const reported = [];
      const db = new PostgresDatabase({
        url: 'postgres://postgres@127.0.0.1:${port}/goodbye',
        maxConnections: 2,
        onError: (err) => reported.push(err.code ?? err.message),
      });
      ${body}
      await db.close().catch(() => undefined);
      // Give any late 'error' event the time to surface before a clean exit.
      await new Promise((resolve) => setTimeout(resolve, 200));
      console.log('survived', JSON.stringify(reported));
    })().catch((err) => { console.log('rejected', err && err.message); process.exit(3); });
  `;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

describe('a session ended by the server as soon as it opened', () => {
  it('when a transaction borrows it, then the process survives and the transaction fails as transient', async () => {
    const { code, output } = await inChildProcess(`
      for (let i = 0; i < 5; i += 1) {
        const failure = await db.transaction((tx) => tx.query('SELECT 1')).then(() => undefined, (err) => err);
        if (failure === undefined || !isTransientFailure(failure)) throw new Error('not transient: ' + (failure && failure.message));
      }
    `);

    expect(output).toContain('survived');
    expect(output).toContain('57P01');
    expect(code).toBe(0);
  });

  it('when a plain query borrows it, then the process survives and the query fails as transient', async () => {
    const { code, output } = await inChildProcess(`
      for (let i = 0; i < 5; i += 1) {
        const failure = await db.query('SELECT 1').then(() => undefined, (err) => err);
        if (failure === undefined || !isTransientFailure(failure)) throw new Error('not transient: ' + (failure && failure.message));
      }
    `);

    expect(output).toContain('survived');
    expect(code).toBe(0);
  });
});
