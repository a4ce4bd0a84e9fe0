import { StatusList } from '@sd-jwt/jwt-status-list';
import { base64url, compactVerify, errors as joseErrors, importJWK, type JWK, type KeyLike } from 'jose';

// Offline checks of the proofs of docs/spec/contracts.md §16: a license credential (compact JWS, EdDSA,
// `typ` license+jwt), the status list that revokes it (IETF Token Status List, `typ`
// statuslist+jwt) and the key set both are signed with (`<iss>/.well-known/jwks.json`).

/** A JSON Web Key Set as `GET /.well-known/jwks.json` serves it: Ed25519 public keys (`kty` OKP). */
export interface JWKS {
  keys: JWK[];
}

/** Why a credential or a status list was refused; each is distinct so a caller can act on it. */
export type CredentialFailureReason =
  | 'malformed'
  | 'unknown_key'
  | 'bad_signature'
  | 'wrong_type'
  | 'wrong_issuer'
  | 'not_yet_valid'
  | 'expired'
  | 'revoked'
  | 'status_list_invalid';

/** A credential or status list that did not pass; `reason` says which check failed. */
export class CredentialVerificationError extends Error {
  override readonly name = 'CredentialVerificationError';
  constructor(
    readonly reason: CredentialFailureReason,
    message: string,
  ) {
    super(`${reason}: ${message}`);
  }
}

/** The license a credential stands for, with its period. */
export interface LicenseCredentialClaims {
  /** `lic_…` (the credential's `sub`). */
  id: string;
  boxId: string;
  claimId: string;
  identityName: string;
  platformId: string;
  tier: string;
  allowedUses: string[];
  validFrom: Date;
  expiresAt: Date;
}

/** A credential that passed every check, and what was checked, in words a page can show. */
export interface VerifiedCredential {
  license: LicenseCredentialClaims;
  keyId: string;
  issuer: string;
  /** Where the credential's revocation bit lives (checked only when a status list was given). */
  status: { idx: number; uri: string };
  /** E.g. "signature by key k1", "issuer https://…", "valid until …", "not revoked in status list … at …". */
  checked: string[];
}

export interface VerifyCredentialOptions {
  /** The issuer's key set (`<iss>/.well-known/jwks.json`). */
  keys: JWKS;
  /** The status list JWT the credential's `status.uri` serves; without it revocation is not checked. */
  statusList?: string;
  /** The expected `iss` (the deployment's public base URL); any issuer when absent. */
  issuer?: string;
  now?: Date;
  /** Slack allowed on `nbf` and `exp` for clocks that differ (default 0). */
  clockToleranceSeconds?: number;
}

/** A status list that passed its checks: `statusOf(idx)` is 1 when the credential at idx is no longer valid. */
export interface VerifiedStatusList {
  uri: string;
  issuedAt: Date;
  expiresAt: Date;
  /** Seconds a holder may keep it before fetching it again (`ttl`), when the list says. */
  ttlSeconds: number | undefined;
  keyId: string;
  statusOf(idx: number): 0 | 1;
}

/**
 * Checks a license credential offline: Ed25519 signature by a key of `options.keys`, `typ`,
 * issuer, validity period and, when `options.statusList` is given, its revocation bit. Returns
 * the license, or throws `CredentialVerificationError` with the failed check's `reason`.
 */
export async function verifyLicenseCredential(
  credential: string,
  options: VerifyCredentialOptions,
): Promise<VerifiedCredential> {
  const now = (options.now ?? new Date()).getTime() / 1000;
  const tolerance = options.clockToleranceSeconds ?? 0;
  const { header, payload, kid } = await verifyCompact(credential, options.keys, 'malformed');
  if (header.typ !== 'license+jwt') {
    throw new CredentialVerificationError('wrong_type', `typ is ${String(header.typ)}, not license+jwt`);
  }
  const claims = licenseClaimsOf(payload);
  const issuer = claims.iss;
  if (options.issuer !== undefined && withoutTrailingSlash(options.issuer) !== withoutTrailingSlash(issuer)) {
    throw new CredentialVerificationError('wrong_issuer', `issued by ${issuer}, not ${options.issuer}`);
  }
  if (claims.nbf > now + tolerance) {
    throw new CredentialVerificationError('not_yet_valid', `valid from ${isoOf(claims.nbf)}`);
  }
  if (claims.exp <= now - tolerance) {
    throw new CredentialVerificationError('expired', `expired at ${isoOf(claims.exp)}`);
  }
  const checked = [
    `signature by key ${kid}`,
    // Without an expected issuer, only the key set vouches for it: say so.
    options.issuer === undefined ? `issuer ${issuer} (as named; none was expected)` : `issuer ${issuer}`,
    `valid until ${isoOf(claims.exp)}`,
  ];
  if (options.statusList !== undefined) {
    const list = await verifiedListFor(options.statusList, options.keys, now, tolerance);
    if (list.uri !== claims.status.uri) {
      throw new CredentialVerificationError(
        'status_list_invalid',
        `the list given is ${list.uri}, the credential's is ${claims.status.uri}`,
      );
    }
    if (list.statusOf(claims.status.idx) === 1) {
      throw new CredentialVerificationError(
        'revoked',
        `index ${claims.status.idx} is set in status list ${list.uri} at ${list.issuedAt.toISOString()}`,
      );
    }
    checked.push(`not revoked in status list ${list.uri} at ${list.issuedAt.toISOString()}`);
  }
  return {
    license: {
      id: claims.sub,
      boxId: claims.boxId,
      claimId: claims.claimId,
      identityName: claims.identityName,
      platformId: claims.platformId,
      tier: claims.tier,
      allowedUses: [...claims.allowedUses],
      validFrom: new Date(claims.nbf * 1000),
      expiresAt: new Date(claims.exp * 1000),
    },
    keyId: kid,
    issuer,
    status: claims.status,
    checked,
  };
}

/**
 * Checks a status list JWT offline (signature by a key of `keys`, `typ` statuslist+jwt, not
 * expired, one bit per status) and decodes it. Any failure throws `CredentialVerificationError`
 * with `reason` status_list_invalid.
 */
export async function verifyStatusList(
  statusListJwt: string,
  options: { keys: JWKS; now?: Date; clockToleranceSeconds?: number },
): Promise<VerifiedStatusList> {
  const now = (options.now ?? new Date()).getTime() / 1000;
  return verifiedListFor(statusListJwt, options.keys, now, options.clockToleranceSeconds ?? 0);
}

/** What `createKeyCache` keeps: the issuer's key set and its status lists, fetched once each. */
export interface KeyCache {
  /** The issuer's base URL, without a trailing slash; credentials must name it as `iss`. */
  readonly issuer: string;
  /** The key set, fetched when absent or older than its max-age. */
  keys(): Promise<JWKS>;
  /**
   * The key set fetched again (a credential named a key the cached set does not have), unless
   * fetched in the last 30 seconds: credentials naming unknown keys cannot make it hammer the issuer.
   */
  refreshKeys(): Promise<JWKS>;
  /** The status list JWT at `uri`, fetched when absent or older than its max-age. */
  statusList(uri: string): Promise<string>;
}

export interface KeyCacheOptions {
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
  /** The longest anything is kept (default 10 minutes); a shorter `Cache-Control: max-age` or list `ttl` wins. */
  maxAgeMs?: number;
  /** Clock for ages, in milliseconds (default `Date.now`). */
  now?: () => number;
}

/**
 * A cache of an issuer's key set (`<issuerBaseUrl>/.well-known/jwks.json`) and status lists:
 * each is fetched once and kept for its max-age, so checks in between need no network.
 */
export function createKeyCache(issuerBaseUrl: string, options: KeyCacheOptions = {}): KeyCache {
  const issuer = withoutTrailingSlash(issuerBaseUrl);
  const fetchFn = options.fetch ?? ((input, init) => fetch(input, init));
  const clock = options.now ?? Date.now;
  const maxAgeMs = options.maxAgeMs ?? 10 * 60_000;
  const entries = new Map<string, { value: Promise<unknown>; until: number; fetchedAt: number }>();

  /** `url`'s kept value while fresh, else loaded anew; `refreshAfterMs` forces a load once older than that. */
  function kept<T>(
    url: string,
    load: () => Promise<{ value: T; maxAgeMs: number }>,
    refreshAfterMs?: number,
  ): Promise<T> {
    const entry = entries.get(url);
    const now = clock();
    const fresh =
      entry !== undefined &&
      (refreshAfterMs === undefined ? entry.until > now : now - entry.fetchedAt < refreshAfterMs);
    if (entry !== undefined && fresh) return entry.value as Promise<T>;
    const loading = load().then(({ value, maxAgeMs: age }) => {
      const at = clock();
      entries.set(url, { value: Promise.resolve(value), until: at + Math.min(age, maxAgeMs), fetchedAt: at });
      return value;
    });
    // Concurrent callers share the request; a failed one is not kept.
    entries.set(url, { value: loading, until: Number.POSITIVE_INFINITY, fetchedAt: now });
    loading.catch(() => {
      if (entries.get(url)?.value === loading) entries.delete(url);
    });
    return loading;
  }

  async function get(url: string, accept: string): Promise<{ body: string; maxAgeMs: number }> {
    const response = await fetchFn(url, { headers: { accept } });
    if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
    const body = await response.text();
    const maxAge = /(?:^|,)\s*max-age=(\d+)/i.exec(response.headers.get('cache-control') ?? '')?.[1];
    return { body, maxAgeMs: maxAge === undefined ? maxAgeMs : Number(maxAge) * 1000 };
  }

  const jwksUrl = `${issuer}/.well-known/jwks.json`;
  async function loadKeys(): Promise<{ value: JWKS; maxAgeMs: number }> {
    const { body, maxAgeMs: age } = await get(jwksUrl, 'application/json');
    const value = JSON.parse(body) as unknown;
    if (!isRecord(value) || !Array.isArray(value.keys)) throw new Error(`${jwksUrl} is not a key set`);
    return { value: value as unknown as JWKS, maxAgeMs: age };
  }

  return {
    issuer,
    keys: () => kept(jwksUrl, loadKeys),
    refreshKeys: () => kept(jwksUrl, loadKeys, 30_000),
    statusList: (uri) =>
      kept(uri, async () => {
        const { body, maxAgeMs: age } = await get(uri, 'application/statuslist+jwt');
        const jwt = body.trim();
        const ttl = unverifiedTtlSeconds(jwt);
        return { value: jwt, maxAgeMs: ttl === undefined ? age : Math.min(age, ttl * 1000) };
      }),
  };
}

/**
 * Checks a credential against its issuer's cached keys and status list (fetched through
 * `cache` when absent or stale, once per key set and per list): `verifyLicenseCredential` with
 * the issuer fixed to the cache's.
 */
export async function checkLicenseCredential(
  credential: string,
  cache: KeyCache,
  options: { now?: Date; clockToleranceSeconds?: number } = {},
): Promise<VerifiedCredential> {
  const verify = (keys: JWKS, statusList?: string) =>
    verifyLicenseCredential(credential, { ...options, keys, issuer: cache.issuer, statusList });
  let keys = await cache.keys();
  // Signature, issuer and dates first, so only a status uri the issuer signed is ever fetched.
  const signed = await verify(keys).catch(async (err: unknown) => {
    // A key newer than the cached set: fetch the set once more before refusing.
    if (!(err instanceof CredentialVerificationError) || err.reason !== 'unknown_key') throw err;
    keys = await cache.refreshKeys();
    return verify(keys);
  });
  // Verified already: this second call skips the signature and checks the status bit.
  return verify(keys, await cache.statusList(signed.status.uri));
}

// --- JWS checking -----------------------------------------------------------------------------

type Header = Record<string, unknown> & { kid?: unknown; alg?: unknown; typ?: unknown };
type Failure = 'malformed' | 'status_list_invalid';

const SEGMENT = /^[A-Za-z0-9_-]+$/;
const decoder = new TextDecoder();

/**
 * The header and payload of a compact JWS whose Ed25519 signature a key of `keys` (by `kid`)
 * verifies. Structural faults throw `structural` (malformed, or status_list_invalid for a list).
 */
async function verifyCompact(
  jws: string,
  keys: JWKS,
  structural: Failure,
): Promise<{ header: Header; payload: Record<string, unknown>; kid: string }> {
  const fail = (reason: CredentialFailureReason, message: string) =>
    new CredentialVerificationError(structural === 'malformed' ? reason : structural, message);
  if (typeof jws !== 'string') throw fail('malformed', 'not a string');
  const seen = verifiedSignatures.get(jws) ?? verifiedBefore.get(jws);
  if (seen !== undefined && keys?.keys?.find?.((key) => key?.kid === seen.kid)?.x === seen.x) return seen;
  const parts = jws.split('.');
  const [h = '', p = '', s = ''] = parts;
  if (parts.length !== 3 || !SEGMENT.test(h) || !SEGMENT.test(p) || !SEGMENT.test(s)) {
    throw fail('malformed', 'not a compact JWS (three base64url parts)');
  }
  const header = headerOf(h);
  const payload = jsonObjectOf(p);
  if (header === undefined || payload === undefined)
    throw fail('malformed', 'header or payload is not a JSON object');
  if (header.alg !== 'EdDSA') throw fail('wrong_type', `alg is ${String(header.alg)}, not EdDSA`);
  if (typeof header.kid !== 'string') throw fail('unknown_key', 'no kid in the header');
  if (Array.isArray(header.crit)) throw fail('malformed', 'crit header parameters are not understood');
  const jwk = keys?.keys?.find?.((key) => key?.kid === header.kid);
  if (jwk === undefined || jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') {
    throw fail('unknown_key', `key ${header.kid} is not an Ed25519 key of the key set`);
  }
  if ((jwk.alg !== undefined && jwk.alg !== 'EdDSA') || (jwk.use !== undefined && jwk.use !== 'sig')) {
    throw fail('unknown_key', `key ${header.kid} is not for EdDSA signatures`);
  }
  const signature = base64url.decode(s);
  // Base64url's last character carries spare bits: refuse a second spelling of the same signature.
  if (signature.length !== 64 || base64url.encode(signature) !== s) {
    throw fail('bad_signature', 'the signature is not 64 bytes in canonical base64url');
  }
  const key = readyKeys.get(jwk.x) ?? (await importedKey(jwk));
  let valid: boolean;
  if (key.node !== undefined) {
    valid = key.node.verify(null, Buffer.from(`${h}.${p}`, 'latin1'), key.node.key, signature);
  } else {
    valid = await compactVerify(jws, key.jose, { algorithms: ['EdDSA'] }).then(
      () => true,
      (err: unknown) => {
        if (err instanceof joseErrors.JWSSignatureVerificationFailed) return false;
        throw fail('malformed', err instanceof Error ? err.message : String(err));
      },
    );
  }
  if (!valid) throw fail('bad_signature', `the signature does not verify with key ${header.kid}`);
  const verified = { header, payload, kid: header.kid, x: jwk.x };
  if (verifiedSignatures.size >= MAX_VERIFIED / 2) {
    verifiedBefore = verifiedSignatures;
    verifiedSignatures = new Map();
  }
  verifiedSignatures.set(jws, verified);
  return verified;
}

// The same bytes under the same public key verify the same way every time: a credential checked
// again (a platform checking the avatar it shows, page after page) skips the Ed25519 step. Dates,
// issuer and status are checked anew on every call; a key gone from the set is not trusted.
// Two generations (the newer one and the one before), swapped when the newer is full: bounded,
// and no per-entry eviction cost.
type Verified = { header: Header; payload: Record<string, unknown>; kid: string; x: string };
let verifiedSignatures = new Map<string, Verified>();
let verifiedBefore = new Map<string, Verified>();
const MAX_VERIFIED = 4096;

// A key set's few headers, each parsed once (they are never handed to a caller).
const headers = new Map<string, Header | undefined>();

function headerOf(segment: string): Header | undefined {
  let header = headers.get(segment);
  if (header === undefined) {
    if (headers.size >= 64) headers.clear();
    header = jsonObjectOf(segment);
    headers.set(segment, header);
  }
  return header;
}

function jsonObjectOf(segment: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(decoder.decode(base64url.decode(segment))) as unknown;
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

// --- keys -------------------------------------------------------------------------------------

type NodeCrypto = typeof import('node:crypto');
type ImportedKey =
  | { node: { verify: NodeCrypto['verify']; key: import('node:crypto').KeyObject }; jose?: never }
  | { node?: never; jose: KeyLike | Uint8Array };

let nodeCrypto: NodeCrypto | null | undefined;

/**
 * node:crypto when running in Node (first checks through it: about a third more per second than
 * through jose), found without an import a browser bundle would trip on; null in a browser.
 */
function nodeCryptoIfAny(): NodeCrypto | null {
  if (nodeCrypto === undefined) {
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const found =
      typeof proc?.getBuiltinModule === 'function' ? proc.getBuiltinModule('node:crypto') : undefined;
    nodeCrypto = found === undefined ? null : (found as NodeCrypto);
  }
  return nodeCrypto;
}

// Imported once per public key (its `x`), so a check costs one signature verification;
// `readyKeys` holds the imported ones, read without waiting.
const importedKeys = new Map<string, Promise<ImportedKey>>();
const readyKeys = new Map<string, ImportedKey>();
const MAX_KEYS = 256;

function importedKey(jwk: JWK): Promise<ImportedKey> {
  const x = jwk.x as string;
  let key = importedKeys.get(x);
  if (key === undefined) {
    if (importedKeys.size >= MAX_KEYS) {
      importedKeys.clear();
      readyKeys.clear();
    }
    const publicJwk = { kty: 'OKP', crv: 'Ed25519', x };
    const nodeModule = nodeCryptoIfAny();
    key =
      nodeModule !== null
        ? Promise.resolve().then(() => ({
            node: {
              verify: nodeModule.verify,
              key: nodeModule.createPublicKey({ key: publicJwk, format: 'jwk' }),
            },
          }))
        : importJWK(publicJwk, 'EdDSA').then((imported) => ({ jose: imported }));
    key.then(
      (ready) => readyKeys.set(x, ready),
      () => importedKeys.delete(x),
    );
    importedKeys.set(x, key);
  }
  return key.catch(() => {
    throw new CredentialVerificationError(
      'unknown_key',
      `key ${String(jwk.kid)} is not a valid Ed25519 public key`,
    );
  });
}

// --- status lists -----------------------------------------------------------------------------

interface DecodedList {
  uri: string;
  iat: number;
  exp: number;
  ttl: number | undefined;
  kid: string;
  x: string;
  list: StatusList;
}

// A status list is decoded once (signature and decompression), then only its dates are checked.
// A list of 2^20 entries takes the library about half a second and 10 MB to decompress, so few
// are kept, and a list re-signed with the same bits (a new `iat`, nothing revoked since) reuses them.
const decodedLists = new Map<string, Promise<DecodedList>>();
const MAX_LISTS = 4;
const listBits = new Map<string, StatusList>();

async function verifiedListFor(
  jwt: string,
  keys: JWKS,
  now: number,
  tolerance: number,
): Promise<VerifiedStatusList> {
  let decoding = decodedLists.get(jwt);
  if (decoding === undefined) {
    if (decodedLists.size >= MAX_LISTS) decodedLists.clear();
    decoding = decodeList(jwt, keys);
    decodedLists.set(jwt, decoding);
    decoding.catch(() => decodedLists.delete(jwt));
  }
  let decoded = await decoding;
  // Decoded under another key set: hold it only if that set still has the very same key.
  const jwk = keys?.keys?.find?.((key) => key?.kid === decoded.kid);
  if (jwk?.x !== decoded.x) decoded = await decodeList(jwt, keys);
  if (decoded.exp <= now - tolerance) {
    throw new CredentialVerificationError(
      'status_list_invalid',
      `status list ${decoded.uri} expired at ${isoOf(decoded.exp)}`,
    );
  }
  if (decoded.iat > now + tolerance) {
    throw new CredentialVerificationError(
      'status_list_invalid',
      `status list ${decoded.uri} is issued in the future`,
    );
  }
  const { list, uri } = decoded;
  return {
    uri,
    issuedAt: new Date(decoded.iat * 1000),
    expiresAt: new Date(decoded.exp * 1000),
    ttlSeconds: decoded.ttl,
    keyId: decoded.kid,
    statusOf(idx: number): 0 | 1 {
      if (!Number.isInteger(idx) || idx < 0 || idx >= list.statusList.length) {
        throw new CredentialVerificationError(
          'status_list_invalid',
          `index ${idx} is outside status list ${uri}`,
        );
      }
      return list.getStatus(idx) === 0 ? 0 : 1;
    },
  };
}

async function decodeList(jwt: string, keys: JWKS): Promise<DecodedList> {
  const invalid = (message: string) => new CredentialVerificationError('status_list_invalid', message);
  const { header, payload, kid } = await verifyCompact(jwt, keys, 'status_list_invalid');
  if (header.typ !== 'statuslist+jwt') throw invalid(`typ is ${String(header.typ)}, not statuslist+jwt`);
  const { sub, iat, exp, ttl, status_list: statusList } = payload;
  if (
    typeof sub !== 'string' ||
    !isSeconds(iat) ||
    !isSeconds(exp) ||
    (ttl !== undefined && !isSeconds(ttl))
  ) {
    throw invalid('sub, iat and exp are required (ttl a number when present)');
  }
  if (!isRecord(statusList) || statusList.bits !== 1 || typeof statusList.lst !== 'string') {
    throw invalid('status_list must be {bits: 1, lst}');
  }
  let list = listBits.get(statusList.lst);
  if (list === undefined) {
    try {
      list = StatusList.decompressStatusList(statusList.lst, 1);
    } catch (err) {
      throw invalid(`lst does not decompress: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (listBits.size >= 2) listBits.clear();
    listBits.set(statusList.lst, list);
  }
  const jwk = keys.keys.find((key) => key.kid === kid);
  return { uri: sub, iat, exp, ttl: ttl as number | undefined, kid, x: jwk?.x ?? '', list };
}

// --- claims -----------------------------------------------------------------------------------

interface LicensePayload {
  iss: string;
  sub: string;
  nbf: number;
  exp: number;
  boxId: string;
  claimId: string;
  identityName: string;
  platformId: string;
  tier: string;
  allowedUses: string[];
  status: { idx: number; uri: string };
}

function licenseClaimsOf(payload: Record<string, unknown>): LicensePayload {
  const missing: string[] = ['iss', 'sub', 'boxId', 'claimId', 'identityName', 'platformId', 'tier'].filter(
    (name) => typeof payload[name] !== 'string',
  );
  for (const name of ['iat', 'nbf', 'exp']) if (!isSeconds(payload[name])) missing.push(name);
  const uses = payload.allowedUses;
  if (!Array.isArray(uses) || !uses.every((use) => typeof use === 'string')) missing.push('allowedUses');
  const status = statusReferenceOf(payload.status);
  if (status === undefined) missing.push('status');
  if (missing.length > 0 || status === undefined) {
    throw new CredentialVerificationError('malformed', `claims missing or mistyped: ${missing.join(', ')}`);
  }
  if (!(payload.sub as string).startsWith('lic_')) {
    throw new CredentialVerificationError('malformed', 'sub is not a license id (lic_…)');
  }
  return { ...(payload as unknown as LicensePayload), status };
}

/**
 * `status: {status_list: {idx, uri}}` (IETF) or `status: {idx, uri}` (docs/spec/contracts.md §16); when both
 * are there they must agree.
 */
function statusReferenceOf(status: unknown): { idx: number; uri: string } | undefined {
  if (!isRecord(status)) return undefined;
  const ietf = isRecord(status.status_list) ? referenceOf(status.status_list) : undefined;
  const flat = referenceOf(status);
  if (ietf !== undefined && flat !== undefined && (ietf.idx !== flat.idx || ietf.uri !== flat.uri))
    return undefined;
  return ietf ?? flat;
}

function referenceOf(value: Record<string, unknown>): { idx: number; uri: string } | undefined {
  const { idx, uri } = value;
  return Number.isInteger(idx) && (idx as number) >= 0 && typeof uri === 'string'
    ? { idx: idx as number, uri }
    : undefined;
}

function unverifiedTtlSeconds(jwt: string): number | undefined {
  const ttl = jsonObjectOf(jwt.split('.')[1] ?? '')?.ttl;
  return isSeconds(ttl) ? ttl : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSeconds(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function isoOf(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}

function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
