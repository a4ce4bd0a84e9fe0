import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CompactSign, exportJWK, generateKeyPair } from 'jose';
import { consistencyProof, leafHash, rootOf, subtreeOf } from '@svc/merkle-log';
import { treeHeadPayload, type TreeHead } from '../../src';

// `svc-transparency-monitor` (docs/spec/contracts.md §16), run as a user runs it: the built command against a
// log on loopback. It keeps the last verified head in its state file, proves each later head an
// extension of it, and exits 1 on a fork or a rollback without forgetting the good head.
const bin = path.join(__dirname, '../../dist/monitor-cli.js');

let server: Server;
let baseUrl: string;
let keys: { keys: object[] };
let sign: (payload: Uint8Array) => Promise<string>;
/** What the log serves now: its leaves and whether its head lies about them. */
let leaves: Buffer[] = [];
let served: () => Promise<TreeHead>;

async function headOf(of: Buffer[], timestamp = new Date().toISOString()): Promise<TreeHead> {
  const head = { treeSize: of.length, rootHash: rootOf(of).toString('base64'), timestamp };
  return { ...head, signature: await sign(treeHeadPayload(head)) };
}

const entries = (from: number, to: number, tag = 'a') =>
  Array.from({ length: to - from }, (_, i) => leafHash(Buffer.from(`${tag}-decision-${from + i}`)));

beforeAll(async () => {
  const pair = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  keys = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'EdDSA', use: 'sig' }] };
  sign = (payload) =>
    new CompactSign(payload)
      .setProtectedHeader({ alg: 'EdDSA', kid: 'k1', typ: 'tree-head+jws' })
      .sign(pair.privateKey);
  served = () => headOf(leaves);
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const json = (body: unknown) =>
      res.setHeader('content-type', 'application/json').end(JSON.stringify(body));
    if (url.pathname === '/.well-known/jwks.json') return json(keys);
    if (url.pathname === '/v1/svc/transparency/tree-head')
      return void served().then((data) => json({ data }));
    if (url.pathname === '/v1/svc/transparency/proofs/consistency') {
      const first = Number(url.searchParams.get('first'));
      const second = Number(url.searchParams.get('second'));
      const proof = consistencyProof(first, second, subtreeOf(leaves));
      return json({ data: { first, second, proof: proof.map((h) => h.toString('base64')) } });
    }
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function monitor(stateFile: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, '--base-url', baseUrl, '--state', stateFile, '--once'],
      { timeout: 20_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

describe('svc-transparency-monitor', () => {
  it('when the log grows, then each look proves it an extension of the last; when it forks or rolls back, then it exits 1 and keeps the last good head', async () => {
    const state = path.join(mkdtempSync(path.join(os.tmpdir(), 'monitor-')), 'head.json');
    leaves = entries(0, 5);
    expect(await monitor(state)).toMatchObject({
      code: 0,
      out: expect.stringContaining('first look: size 5'),
    });

    leaves = [...leaves, ...entries(5, 12)];
    expect(await monitor(state)).toMatchObject({
      code: 0,
      out: expect.stringContaining('grew from size 5 to size 12'),
    });
    const kept = JSON.parse(readFileSync(state, 'utf8')) as TreeHead;
    expect(kept.treeSize).toBe(12);

    // The same size with a rewritten entry: a fork.
    const honest = leaves;
    leaves = [...honest.slice(0, 3), leafHash(Buffer.from('rewritten')), ...honest.slice(4)];
    expect(await monitor(state)).toMatchObject({ code: 1, out: expect.stringContaining('ALERT fork') });
    // A longer log whose prefix was rewritten: the consistency proof fails, a fork too.
    leaves = [...leaves, ...entries(12, 15)];
    expect(await monitor(state)).toMatchObject({ code: 1, out: expect.stringContaining('ALERT fork') });
    // Fewer entries than the head it signed: a rollback.
    leaves = honest.slice(0, 9);
    expect(await monitor(state)).toMatchObject({ code: 1, out: expect.stringContaining('ALERT rollback') });
    expect(JSON.parse(readFileSync(state, 'utf8'))).toEqual(kept);

    // Honest again and longer: consistent with the head kept before the alerts.
    leaves = [...honest, ...entries(12, 20)];
    expect(await monitor(state)).toMatchObject({
      code: 0,
      out: expect.stringContaining('grew from size 12 to size 20'),
    });
  });

  it('when a head is signed by another key, then it is a bad signature, exit 1', async () => {
    const state = path.join(mkdtempSync(path.join(os.tmpdir(), 'monitor-')), 'head.json');
    leaves = entries(0, 4);
    const stranger = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    served = async () => {
      const head = {
        treeSize: leaves.length,
        rootHash: rootOf(leaves).toString('base64'),
        timestamp: new Date().toISOString(),
      };
      const signature = await new CompactSign(treeHeadPayload(head))
        .setProtectedHeader({ alg: 'EdDSA', kid: 'k1' })
        .sign(stranger.privateKey);
      return { ...head, signature };
    };
    try {
      expect(await monitor(state)).toMatchObject({
        code: 1,
        out: expect.stringContaining('ALERT bad signature'),
      });
    } finally {
      served = () => headOf(leaves);
    }
  });

  it('when the base URL is missing, then it prints its usage and exits 2', async () => {
    const result = await new Promise<{ code: number; out: string }>((resolve) =>
      execFile(process.execPath, [bin, '--once'], (err, stdout, stderr) =>
        resolve({ code: err ? Number(err.code) : 0, out: `${stdout}${stderr}` }),
      ),
    );
    expect(result).toMatchObject({
      code: 2,
      out: expect.stringContaining('usage: svc-transparency-monitor'),
    });
  });
});
