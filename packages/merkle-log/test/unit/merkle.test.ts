import fc from 'fast-check';
import {
  consistencyProof,
  EMPTY_ROOT,
  inclusionProof,
  leafHash,
  rootOf,
  subtreeOf,
  verifyConsistency,
  verifyInclusion,
  type Hash,
} from '../../src';

// RFC 9162 §2.1 against the reference data Certificate Transparency publishes with RFC 6962 (the
// same hashing): eight entries, the tree head of every prefix, audit paths and consistency proofs.
const ENTRIES = [
  '',
  '00',
  '10',
  '2021',
  '3031',
  '40414243',
  '5051525354555657',
  '606162636465666768696a6b6c6d6e6f',
].map((hex) => Buffer.from(hex, 'hex'));
const LEAVES = ENTRIES.map(leafHash);
const ROOTS = [
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];
// [leaf index (from 0), tree size, audit path]
const INCLUSION: [number, number, string[]][] = [
  [
    0,
    8,
    [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  ],
  [
    5,
    8,
    [
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  ],
  [2, 3, ['fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125']],
  [
    1,
    5,
    [
      '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    ],
  ],
];
// [first size, second size, consistency proof]
const CONSISTENCY: [number, number, string[]][] = [
  [1, 1, []],
  [
    1,
    8,
    [
      '96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7',
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      '6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4',
    ],
  ],
  [
    6,
    8,
    [
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  ],
  [
    2,
    5,
    [
      '5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e',
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
    ],
  ],
];

const hex = (hashes: readonly Hash[]) => hashes.map((h) => h.toString('hex'));
const unhex = (hashes: readonly string[]) => hashes.map((h) => Buffer.from(h, 'hex'));
const root = (size: number) => Buffer.from(ROOTS[size] ?? '', 'hex');
const flipped = (hash: Hash) => {
  const copy = Buffer.from(hash);
  copy[0] = (copy[0] ?? 0) ^ 0x01;
  return copy;
};

describe('RFC 9162 Merkle tree hashing, against the published vectors', () => {
  it('when the tree has 0 to 8 entries, then its head is the published one', () => {
    expect(EMPTY_ROOT.toString('hex')).toBe(ROOTS[0]);
    for (let size = 0; size <= 8; size += 1) {
      expect(rootOf(LEAVES.slice(0, size)).toString('hex')).toBe(ROOTS[size]);
    }
  });

  it.each(INCLUSION)(
    'when leaf %i of a tree of %i is proven, then the audit path is the published one and verifies',
    (index, size, path) => {
      const proof = inclusionProof(index, size, subtreeOf(LEAVES));
      expect(hex(proof)).toEqual(path);
      expect(verifyInclusion(index, size, LEAVES[index] as Hash, unhex(path), root(size))).toBe(true);
      // Against another root, for another leaf or index, or one changed byte of the path: refused.
      expect(verifyInclusion(index, size, LEAVES[index] as Hash, proof, root(size - 1))).toBe(false);
      expect(verifyInclusion(index, size, leafHash(Buffer.from('forged')), proof, root(size))).toBe(false);
      expect(verifyInclusion((index + 1) % size, size, LEAVES[index] as Hash, proof, root(size))).toBe(false);
      if (proof.length > 0) {
        const tampered = [flipped(proof[0] as Hash), ...proof.slice(1)];
        expect(verifyInclusion(index, size, LEAVES[index] as Hash, tampered, root(size))).toBe(false);
      }
    },
  );

  it.each(CONSISTENCY)(
    'when the tree of %i is proven a prefix of the tree of %i, then the proof is the published one and verifies',
    (first, second, expected) => {
      const proof = consistencyProof(first, second, subtreeOf(LEAVES));
      expect(hex(proof)).toEqual(expected);
      expect(verifyConsistency(first, second, unhex(expected), root(first), root(second))).toBe(true);
      // A rewritten earlier tree (another first root) or a forked later one: refused.
      expect(verifyConsistency(first, second, proof, flipped(root(first)), root(second))).toBe(false);
      expect(verifyConsistency(first, second, proof, root(first), flipped(root(second)))).toBe(false);
    },
  );

  it('when the input cannot be a proof, then it is refused, never thrown', () => {
    expect(verifyInclusion(8, 8, LEAVES[0] as Hash, [], root(8))).toBe(false);
    expect(verifyInclusion(-1, 8, LEAVES[0] as Hash, [], root(8))).toBe(false);
    expect(verifyInclusion(0, 8, LEAVES[0] as Hash, [], root(8))).toBe(false);
    expect(verifyConsistency(5, 3, [], root(5), root(3))).toBe(false);
    expect(verifyConsistency(3, 5, [], root(3), root(5))).toBe(false);
    expect(verifyConsistency(0, 5, [], EMPTY_ROOT, root(5))).toBe(true);
    expect(() => inclusionProof(8, 8, subtreeOf(LEAVES))).toThrow(RangeError);
    expect(() => consistencyProof(6, 5, subtreeOf(LEAVES))).toThrow(RangeError);
  });
});

describe('any prefix of a log is consistent with any later size (property)', () => {
  const logs = fc.array(fc.uint8Array({ maxLength: 12 }), { minLength: 1, maxLength: 70 });

  it('when a log grows, then every earlier tree head is proven a prefix of every later one, and every entry is in every tree that holds it', () => {
    fc.assert(
      fc.property(logs, (entries) => {
        const leaves = entries.map(leafHash);
        const mth = subtreeOf(leaves);
        const roots = leaves.map((_, i) => rootOf(leaves.slice(0, i + 1)));
        for (let second = 1; second <= leaves.length; second += 1) {
          for (let first = 1; first <= second; first += 1) {
            const proof = consistencyProof(first, second, mth);
            if (
              !verifyConsistency(first, second, proof, roots[first - 1] as Hash, roots[second - 1] as Hash)
            ) {
              return false;
            }
          }
          for (let index = 0; index < second; index += 1) {
            const proof = inclusionProof(index, second, mth);
            if (!verifyInclusion(index, second, leaves[index] as Hash, proof, roots[second - 1] as Hash)) {
              return false;
            }
          }
        }
        return true;
      }),
      { numRuns: 40 },
    );
  });

  it('when one entry of the history is rewritten, then no proof reconciles the old tree head with the new log', () => {
    fc.assert(
      fc.property(logs, fc.nat(), fc.nat(), (entries, at, extra) => {
        if (entries.length < 2) return true;
        const leaves = entries.map(leafHash);
        const first = 1 + (at % (entries.length - 1));
        const second = Math.min(entries.length, first + 1 + (extra % entries.length));
        const oldRoot = rootOf(leaves.slice(0, first));
        // The log rewrites one of the first `first` entries, then grows.
        const rewritten = [...leaves];
        const victim = at % first;
        rewritten[victim] = leafHash(Buffer.concat([Buffer.from(entries[victim] ?? []), Buffer.from('!')]));
        const mth = subtreeOf(rewritten);
        const proof = consistencyProof(first, second, mth);
        return !verifyConsistency(first, second, proof, oldRoot, rootOf(rewritten.slice(0, second)));
      }),
      { numRuns: 200 },
    );
  });
});
