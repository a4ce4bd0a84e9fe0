import { StatusList } from '@sd-jwt/jwt-status-list';
import { type JWKS, CredentialVerificationError, type VerifiedStatusList } from './credential-model';
import { isRecord, isSeconds, isoOf } from './jws-parsing';
import { verifyCompact } from './jws-verification';

// Status lists: verified and decompressed once, their dates checked on every read.

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

export async function verifiedListFor(
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
