import { base64url, compactVerify, errors as joseErrors } from 'jose';
import { type JWKS, type CredentialFailureReason, CredentialVerificationError } from './credential-model';
import { type Header, type Failure, SEGMENT, headerOf, jsonObjectOf } from './jws-parsing';
import { readyKeys, importedKey } from './public-key-import';

// A compact JWS checked against a key set, and the results kept so the same bytes verify once.

/**
 * The header and payload of a compact JWS whose Ed25519 signature a key of `keys` (by `kid`)
 * verifies. Structural faults throw `structural` (malformed, or status_list_invalid for a list).
 */
export async function verifyCompact(
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
