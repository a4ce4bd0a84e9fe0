import { base64url, compactVerify, createLocalJWKSet, decodeProtectedHeader, type JWK } from 'jose';

// Offline checks of the transparency log (docs/spec/contracts.md §16, RFC 9162 §2.1): that an entry is in a
// tree (inclusion), that a tree is a prefix of a later one (consistency), that a tree head was
// signed by the log, and a monitor that fetches tree heads over time and reports a fork or a
// rollback. SHA-256 through WebCrypto, so the same module runs in Node and in a browser.

/** A tree head as `GET /v1/svc/transparency/tree-head` answers it (`data`). */
export interface TreeHead {
  treeSize: number;
  /** Base64 of the 32-byte root hash. */
  rootHash: string;
  /** ISO 8601: when the log signed this size. */
  timestamp: string;
  /** Compact JWS (EdDSA) whose payload is the head's canonical JSON (sorted keys). */
  signature: string;
}

const LEAF_PREFIX = 0x00;
const NODE_PREFIX = 0x01;

async function sha256(...parts: Uint8Array[]): Promise<Uint8Array> {
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  const joined = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', joined));
}

const nodeHash = (left: Uint8Array, right: Uint8Array) => sha256(Uint8Array.of(NODE_PREFIX), left, right);

/** The leaf hash of an entry's bytes: SHA-256(0x00 || entry). */
export function leafHashOf(entry: Uint8Array): Promise<Uint8Array> {
  return sha256(Uint8Array.of(LEAF_PREFIX), entry);
}

/** Base64 (standard or URL-safe) to bytes; hashes travel as base64 in the API. */
export function fromBase64(value: string): Uint8Array {
  return base64url.decode(value.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''));
}

export function toBase64(bytes: Uint8Array): string {
  return (
    base64url.encode(bytes).replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((3 - (bytes.length % 3)) % 3)
  );
}

const same = (a: Uint8Array, b: Uint8Array): boolean =>
  a.length === b.length && a.every((byte, i) => byte === b[i]);
const whole = (n: number): boolean => Number.isSafeInteger(n) && n >= 0;

/**
 * True when `proof` (the audit path, leaf first) leads from the leaf at `index` to `rootHash` in a
 * tree of `treeSize` leaves (RFC 9162 §2.1.3.2). A malformed proof is false, never an exception.
 */
export async function verifyInclusionProof(input: {
  leafHash: Uint8Array;
  index: number;
  treeSize: number;
  proof: readonly Uint8Array[];
  rootHash: Uint8Array;
}): Promise<boolean> {
  const { index, treeSize, proof } = input;
  if (!whole(index) || !whole(treeSize) || index >= treeSize) return false;
  let fn = index;
  let sn = treeSize - 1;
  let r = input.leafHash;
  for (const p of proof) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = await nodeHash(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      r = await nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && same(r, input.rootHash);
}

/**
 * True when `proof` shows the tree of `first` leaves (root `firstRoot`) to be a prefix of the tree of
 * `second` leaves (root `secondRoot`) (RFC 9162 §2.1.4.2): nothing logged by then was rewritten.
 */
export async function verifyConsistencyProof(input: {
  first: number;
  second: number;
  proof: readonly Uint8Array[];
  firstRoot: Uint8Array;
  secondRoot: Uint8Array;
}): Promise<boolean> {
  const { first, second, proof, firstRoot, secondRoot } = input;
  if (!whole(first) || !whole(second) || first > second) return false;
  if (first === 0) return proof.length === 0;
  if (first === second) return proof.length === 0 && same(firstRoot, secondRoot);
  if (proof.length === 0) return false;
  const path = (first & (first - 1)) === 0 ? [firstRoot, ...proof] : [...proof];
  let fn = first - 1;
  let sn = second - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  const [head, ...rest] = path;
  if (head === undefined) return false;
  let fr = head;
  let sr = head;
  for (const c of rest) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = await nodeHash(c, fr);
      sr = await nodeHash(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      sr = await nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && same(fr, firstRoot) && same(sr, secondRoot);
}

/** The bytes a tree head's signature covers: `{rootHash, timestamp, treeSize}` as JSON, keys sorted. */
export function treeHeadPayload(head: Pick<TreeHead, 'treeSize' | 'rootHash' | 'timestamp'>): Uint8Array {
  return new TextEncoder().encode(
    JSON.stringify({ rootHash: head.rootHash, timestamp: head.timestamp, treeSize: head.treeSize }),
  );
}

/** True when the head's signature is the log's (a key of `keys`) over exactly its size, root and time. */
export async function verifyTreeHead(head: TreeHead, keys: { keys: JWK[] }): Promise<boolean> {
  try {
    const header = decodeProtectedHeader(head.signature);
    if (header.alg !== 'EdDSA') return false;
    const { payload } = await compactVerify(head.signature, createLocalJWKSet(keys));
    return same(payload, treeHeadPayload(head));
  } catch {
    return false;
  }
}

/** What one look at the log found. */
export type MonitorReport =
  | { kind: 'first'; head: TreeHead }
  | { kind: 'unchanged'; head: TreeHead }
  | { kind: 'grew'; from: TreeHead; head: TreeHead }
  /** The log shrank: it answered a smaller tree than one it signed before. */
  | { kind: 'rollback'; from: TreeHead; head: TreeHead }
  /** Two signed heads no consistency proof reconciles (or the same size with two roots). */
  | { kind: 'fork'; from: TreeHead; head: TreeHead }
  /** A head whose signature is not the log's: not trusted, not remembered. */
  | { kind: 'bad_signature'; head: TreeHead };

export interface TransparencyMonitorOptions {
  /** The deployment's public base URL (the credentials' `iss`). */
  baseUrl: string;
  /** The key set (`/.well-known/jwks.json`); fetched once when not given. */
  keys?: { keys: JWK[] };
  /** The head verified last time (kept by the caller across runs); none: the first look. */
  last?: TreeHead;
  fetch?: typeof fetch;
}

async function getJson<T>(fetcher: typeof fetch, url: string): Promise<T> {
  const response = await fetcher(url, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return (await response.json()) as T;
}

/**
 * One look at the log, as a monitor makes it every few minutes: fetch the signed tree head, check
 * its signature, and prove it an extension of the head seen last (a consistency proof from the
 * log). Keep `report.head` as the next `last` unless the report is a fork, rollback or bad signature,
 * which are for people to act on.
 */
export async function checkTransparencyLog(options: TransparencyMonitorOptions): Promise<MonitorReport> {
  const fetcher = options.fetch ?? globalThis.fetch;
  const base = options.baseUrl.replace(/\/+$/, '');
  const keys = options.keys ?? (await getJson<{ keys: JWK[] }>(fetcher, `${base}/.well-known/jwks.json`));
  const { data: head } = await getJson<{ data: TreeHead }>(fetcher, `${base}/v1/svc/transparency/tree-head`);
  if (!(await verifyTreeHead(head, keys))) return { kind: 'bad_signature', head };
  const last = options.last;
  if (last === undefined) return { kind: 'first', head };
  if (head.treeSize < last.treeSize) return { kind: 'rollback', from: last, head };
  if (head.treeSize === last.treeSize) {
    return head.rootHash === last.rootHash ? { kind: 'unchanged', head } : { kind: 'fork', from: last, head };
  }
  const { data } = await getJson<{ data: { proof: string[] } }>(
    fetcher,
    `${base}/v1/svc/transparency/proofs/consistency?first=${last.treeSize}&second=${head.treeSize}`,
  );
  const consistent = await verifyConsistencyProof({
    first: last.treeSize,
    second: head.treeSize,
    proof: data.proof.map(fromBase64),
    firstRoot: fromBase64(last.rootHash),
    secondRoot: fromBase64(head.rootHash),
  });
  return consistent ? { kind: 'grew', from: last, head } : { kind: 'fork', from: last, head };
}
