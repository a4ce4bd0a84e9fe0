import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';

/** A public signing key as the JWKS lists it (RFC 8037: Ed25519 is OKP). */
export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

/** A retired key: listed until `notAfter`, when the last credential it signed has expired. */
export interface RetiredJwk extends PublicJwk {
  notAfter: string;
}

/** The key that signs: the private KeyObject imported once, its kid and its public JWK. */
export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicJwk: PublicJwk;
}

/** The current key and the retired ones still published (docs/adr/0029). */
export interface KeyRing {
  current: SigningKey;
  retired: RetiredJwk[];
}

/** A key setting that cannot be used; the message never quotes the key. */
export class SigningKeyError extends Error {
  override name = 'SigningKeyError';
}

function publicJwkOf(x: string, kid: string): PublicJwk {
  return { kty: 'OKP', crv: 'Ed25519', x, kid, alg: 'EdDSA', use: 'sig' };
}

/** The RFC 7638 thumbprint of an Ed25519 public key: the kid when none is given. */
export function thumbprintOf(x: string): Promise<string> {
  return calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The signing key from its setting: a PKCS#8 PEM, or a private JWK as JSON (`kid` kept when
 * given, otherwise the thumbprint). Only Ed25519 is accepted.
 */
export async function signingKeyFrom(text: string): Promise<SigningKey> {
  const trimmed = text.trim();
  let privateKey: KeyObject;
  let givenKid: string | undefined;
  if (trimmed.startsWith('{')) {
    let jwk: unknown;
    try {
      jwk = JSON.parse(trimmed);
    } catch {
      throw new SigningKeyError('the signing key is neither a PEM nor valid JSON');
    }
    if (!isRecord(jwk) || jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.d !== 'string') {
      throw new SigningKeyError(
        'the signing key JWK must be a private Ed25519 key (kty OKP, crv Ed25519, d)',
      );
    }
    if (jwk.kid !== undefined && (typeof jwk.kid !== 'string' || jwk.kid === '')) {
      throw new SigningKeyError('the signing key JWK has an invalid kid');
    }
    givenKid = jwk.kid;
    try {
      privateKey = createPrivateKey({ key: jwk, format: 'jwk' });
    } catch {
      throw new SigningKeyError('the signing key JWK is not a valid Ed25519 private key');
    }
  } else {
    try {
      privateKey = createPrivateKey(trimmed);
    } catch {
      throw new SigningKeyError('the signing key is not a readable PKCS#8 PEM private key');
    }
  }
  if (privateKey.asymmetricKeyType !== 'ed25519') {
    throw new SigningKeyError(
      `the signing key must be Ed25519, not ${privateKey.asymmetricKeyType ?? 'a symmetric key'}`,
    );
  }
  const { x } = createPublicKey(privateKey).export({ format: 'jwk' });
  if (typeof x !== 'string') throw new SigningKeyError('the signing key has no public part');
  const kid = givenKid ?? (await thumbprintOf(x));
  return { kid, privateKey, publicJwk: publicJwkOf(x, kid) };
}

/** A new Ed25519 key as a private JWK with its thumbprint as kid (the sandbox default, the rotation command). */
export async function generatePrivateJwk(): Promise<JWK & { kid: string }> {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  const x = String(jwk.x);
  return { kty: 'OKP', crv: 'Ed25519', x, d: String(jwk.d), kid: await thumbprintOf(x) };
}

/**
 * The retired keys file: a JSON array of public JWKs each with `notAfter` (or `{keys: [...]}`).
 * A private member (`d`) is refused: that file is published, in effect.
 */
export function retiredKeysFrom(text: string): RetiredJwk[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new SigningKeyError('the retired keys file is not valid JSON');
  }
  const list = isRecord(parsed) ? parsed.keys : parsed;
  if (!Array.isArray(list)) throw new SigningKeyError('the retired keys file must be a JSON array of JWKs');
  return list.map((entry, i) => {
    if (!isRecord(entry) || entry.kty !== 'OKP' || entry.crv !== 'Ed25519' || typeof entry.x !== 'string') {
      throw new SigningKeyError(`retired key ${i} is not an Ed25519 public JWK`);
    }
    if ('d' in entry)
      throw new SigningKeyError(`retired key ${i} holds a private key: keep only the public part`);
    if (typeof entry.kid !== 'string' || entry.kid === '') {
      throw new SigningKeyError(`retired key ${i} has no kid`);
    }
    if (typeof entry.notAfter !== 'string' || Number.isNaN(Date.parse(entry.notAfter))) {
      throw new SigningKeyError(`retired key ${i} (${entry.kid}) has no valid notAfter`);
    }
    return { ...publicJwkOf(entry.x, entry.kid), notAfter: new Date(entry.notAfter).toISOString() };
  });
}

/** The retired form of a key: its public JWK listed until `notAfter`. */
export function retire(key: SigningKey, notAfter: Date): RetiredJwk {
  return { ...key.publicJwk, notAfter: notAfter.toISOString() };
}

/** The JWKS served: the current key, then every retired key still needed at `now` (not the current one twice). */
export function jwksOf(ring: KeyRing, now: Date): { keys: PublicJwk[] } {
  const retired = ring.retired
    .filter((k) => Date.parse(k.notAfter) > now.getTime() && k.kid !== ring.current.kid)
    .map(({ notAfter: _notAfter, ...jwk }) => jwk);
  return { keys: [ring.current.publicJwk, ...retired] };
}
