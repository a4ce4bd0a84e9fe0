import { CompactSign, exportJWK, generateKeyPair, type JWK } from 'jose';
import fc from 'fast-check';
import { consistencyProof, inclusionProof, leafHash, rootOf, subtreeOf } from '@svc/merkle-log';
import {
  checkTransparencyLog,
  leafHashOf,
  toBase64,
  treeHeadPayload,
  verifyConsistencyProof,
  verifyInclusionProof,
  verifyTreeHead,
  type TreeHead,
} from '../../src/transparency';

// A third party's side of the transparency log (docs/spec/contracts.md §16): proofs checked with WebCrypto
// (Node and browsers alike) agree with RFC 9162 as packages/merkle-log builds it; a tampered entry,
// root or signature is caught; the monitor reports growth, a rollback and a fork.
const leaves = Array.from({ length: 40 }, (_, i) => leafHash(Buffer.from(`entry ${i}`)));

describe('transparency proofs, offline', () => {
  it('when an entry is hashed, then the leaf hash is RFC 9162’s', async () => {
    expect(Buffer.from(await leafHashOf(Buffer.from('entry 3')))).toEqual(leaves[3]);
  });

  it('when any inclusion or consistency proof of any size is checked, then it verifies, and with one bit flipped it does not', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .integer({ min: 1, max: 40 })
          .chain((size) =>
            fc.tuple(
              fc.constant(size),
              fc.integer({ min: 0, max: size - 1 }),
              fc.integer({ min: 0, max: size }),
            ),
          ),
        async ([size, index, first]) => {
          const part = leaves.slice(0, size);
          const mth = subtreeOf(part);
          const root = rootOf(part);
          const path = inclusionProof(index, size, mth);
          const leaf = part[index] as Buffer;
          expect(
            await verifyInclusionProof({
              leafHash: leaf,
              index,
              treeSize: size,
              proof: path,
              rootHash: root,
            }),
          ).toBe(true);
          const forged = Buffer.from(leaf);
          forged[0] = (forged[0] ?? 0) ^ 1;
          expect(
            await verifyInclusionProof({
              leafHash: forged,
              index,
              treeSize: size,
              proof: path,
              rootHash: root,
            }),
          ).toBe(false);
          const proof = consistencyProof(first, size, mth);
          const firstRoot = rootOf(part.slice(0, first));
          expect(
            await verifyConsistencyProof({ first, second: size, proof, firstRoot, secondRoot: root }),
          ).toBe(true);
          if (first > 0 && first < size) {
            const otherRoot = Buffer.from(firstRoot);
            otherRoot[5] = (otherRoot[5] ?? 0) ^ 1;
            expect(
              await verifyConsistencyProof({
                first,
                second: size,
                proof,
                firstRoot: otherRoot,
                secondRoot: root,
              }),
            ).toBe(false);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('when a proof is malformed (sizes out of range, too short, too long), then it is false, not an exception', async () => {
    const root = rootOf(leaves.slice(0, 8));
    const path = inclusionProof(2, 8, subtreeOf(leaves.slice(0, 8)));
    const leaf = leaves[2] as Buffer;
    expect(
      await verifyInclusionProof({ leafHash: leaf, index: 8, treeSize: 8, proof: path, rootHash: root }),
    ).toBe(false);
    expect(
      await verifyInclusionProof({
        leafHash: leaf,
        index: 2,
        treeSize: 8,
        proof: path.slice(1),
        rootHash: root,
      }),
    ).toBe(false);
    expect(
      await verifyInclusionProof({
        leafHash: leaf,
        index: 2,
        treeSize: 8,
        proof: [...path, root],
        rootHash: root,
      }),
    ).toBe(false);
    expect(
      await verifyConsistencyProof({ first: 9, second: 8, proof: [], firstRoot: root, secondRoot: root }),
    ).toBe(false);
  });
});

describe('tree heads and the monitor', () => {
  let jwks: { keys: JWK[] };
  let sign: (head: Omit<TreeHead, 'signature'>) => Promise<TreeHead>;

  beforeAll(async () => {
    const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'log-1', alg: 'EdDSA', use: 'sig' }] };
    sign = async (head) => ({
      ...head,
      signature: await new CompactSign(treeHeadPayload(head))
        .setProtectedHeader({ alg: 'EdDSA', kid: 'log-1' })
        .sign(privateKey),
    });
  });

  const headOf = (size: number, at = '2026-11-29T08:00:00.000Z') =>
    sign({ treeSize: size, rootHash: toBase64(rootOf(leaves.slice(0, size))), timestamp: at });

  it('when a head is signed by the log, then it verifies; with another size, root or time, or another key, it does not', async () => {
    const head = await headOf(10);
    expect(await verifyTreeHead(head, jwks)).toBe(true);
    expect(await verifyTreeHead({ ...head, treeSize: 11 }, jwks)).toBe(false);
    expect(await verifyTreeHead({ ...head, rootHash: toBase64(rootOf(leaves.slice(0, 9))) }, jwks)).toBe(
      false,
    );
    expect(await verifyTreeHead({ ...head, timestamp: '2026-11-29T08:00:01.000Z' }, jwks)).toBe(false);
    const other = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    const stranger = { keys: [{ ...(await exportJWK(other.publicKey)), kid: 'log-1', alg: 'EdDSA' }] };
    expect(await verifyTreeHead(head, stranger)).toBe(false);
  });

  /** A log answering the given head and honest consistency proofs over `leaves`. */
  const logServing = (head: TreeHead, proofLeaves = leaves): typeof fetch =>
    (async (input: string | URL | Request) => {
      const url = new URL(String(input));
      if (url.pathname === '/v1/svc/transparency/tree-head') return Response.json({ data: head });
      if (url.pathname === '/v1/svc/transparency/proofs/consistency') {
        const first = Number(url.searchParams.get('first'));
        const second = Number(url.searchParams.get('second'));
        const proof = consistencyProof(first, second, subtreeOf(proofLeaves.slice(0, second)));
        return Response.json({ data: { first, second, proof: proof.map((h) => toBase64(h)) } });
      }
      return new Response('not found', { status: 404 });
    }) as typeof fetch;

  it('when the log grows honestly, then the monitor says so; when it shrinks, forks or signs with another key, it says which', async () => {
    const base = { baseUrl: 'http://log.test', keys: jwks };
    const first = await headOf(12);
    expect((await checkTransparencyLog({ ...base, fetch: logServing(first) })).kind).toBe('first');
    const later = await headOf(30, '2026-11-29T09:00:00.000Z');
    expect(await checkTransparencyLog({ ...base, last: first, fetch: logServing(later) })).toEqual({
      kind: 'grew',
      from: first,
      head: later,
    });
    expect((await checkTransparencyLog({ ...base, last: later, fetch: logServing(later) })).kind).toBe(
      'unchanged',
    );
    expect((await checkTransparencyLog({ ...base, last: later, fetch: logServing(first) })).kind).toBe(
      'rollback',
    );

    // Entry 5 rewritten after the head of 12 was signed: the new head is signed, but no proof links it.
    const rewritten = leaves.map((leaf, i) => (i === 5 ? leafHash(Buffer.from('rewritten')) : leaf));
    const forked = await sign({
      treeSize: 30,
      rootHash: toBase64(rootOf(rewritten.slice(0, 30))),
      timestamp: '2026-11-29T09:00:00.000Z',
    });
    expect(
      (await checkTransparencyLog({ ...base, last: first, fetch: logServing(forked, rewritten) })).kind,
    ).toBe('fork');
    const sameSizeOtherRoot = { ...forked, treeSize: 30 };
    expect(
      (await checkTransparencyLog({ ...base, last: later, fetch: logServing(sameSizeOtherRoot) })).kind,
    ).toBe('fork');
    const unsigned = { ...later, signature: first.signature };
    expect((await checkTransparencyLog({ ...base, last: first, fetch: logServing(unsigned) })).kind).toBe(
      'bad_signature',
    );
  });
});
