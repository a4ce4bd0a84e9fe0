import { deflateSync } from 'node:zlib';
import { SignJWT } from 'jose';
import { STATUS_LIST_ID, STATUS_LIST_SIZE, statusListUri } from './credentials';
import type { CredentialSigner, LicensingContext } from './ports';

/** `exp` of a status list JWT is its `iat` plus this; `ttl` tells verifiers to fetch again after 30 s. */
export const STATUS_LIST_VALIDITY_S = 600;
export const STATUS_LIST_TTL_S = 30;

/**
 * The IETF Token Status List's `lst` with 1 bit per entry: bit `idx % 8` (least significant first)
 * of byte `idx >> 3` is 1 for each invalid index, then ZLIB (RFC 1950), base64url: the bytes of
 * @sd-jwt/jwt-status-list's StatusList.compressStatusList, which takes 110 to 200 ms at 2^20
 * entries (it encodes through strings). Level 6, not the library's 9: with 20,000 bits set, 9
 * takes 230 ms for a list 7 % smaller, 6 takes 10 ms.
 */
export function encodeStatusList(size: number, invalid: Iterable<number>): string {
  const bytes = new Uint8Array(Math.ceil(size / 8));
  for (const idx of invalid) {
    if (!Number.isInteger(idx) || idx < 0 || idx >= size)
      throw new RangeError(`status index ${idx} out of range`);
    bytes[idx >> 3] = (bytes[idx >> 3] ?? 0) | (1 << (idx & 7));
  }
  return deflateSync(bytes, { level: 6 }).toString('base64url');
}

/** The signed status list (`typ` statuslist+jwt, EdDSA, the credentials' keys). */
export function signStatusList(
  signer: CredentialSigner,
  listId: number,
  lst: string,
  now: Date,
): Promise<string> {
  const key = signer.key();
  const iat = Math.floor(now.getTime() / 1000);
  return new SignJWT({ ttl: STATUS_LIST_TTL_S, status_list: { bits: 1, lst } })
    .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'statuslist+jwt' })
    .setSubject(statusListUri(signer.issuer, listId))
    .setIssuedAt(iat)
    .setExpirationTime(iat + STATUS_LIST_VALIDITY_S)
    .sign(key.privateKey);
}

/**
 * Builds the status list JWT from the stored licenses, kept for at most `cacheMs` (≤ 5 s, so a
 * change shows within 5 s plus the 30 s clients may cache it). A license's bit is 1 once it is
 * revoked, cancelled or expired, or once its scheduled cancellation or its end without renewal has
 * passed by its licensee's clock (before the expiry job has run).
 */
export class StatusListPublisher {
  private cached: { listId: number; jwt: string; builtAt: number } | undefined;
  /** The build under way: requests arriving meanwhile share it (one query, not one per request). */
  private building: Promise<string> | undefined;

  constructor(
    private readonly ctx: Pick<LicensingContext, 'db' | 'credentials' | 'clock' | 'signer'>,
    private readonly cacheMs: number,
  ) {}

  /** The JWT of list `listId`, or null when there is no such list. */
  async jwt(listId: number): Promise<string | null> {
    if (listId !== STATUS_LIST_ID) return null;
    const cached = this.cached;
    if (
      cached !== undefined &&
      cached.listId === listId &&
      performance.now() - cached.builtAt < this.cacheMs
    ) {
      return cached.jwt;
    }
    if (this.building === undefined) {
      this.building = this.build(listId).finally(() => {
        this.building = undefined;
      });
    }
    return this.building;
  }

  private async build(listId: number): Promise<string> {
    const now = this.ctx.clock.now();
    const invalid = await this.ctx.credentials.invalidIndexes(this.ctx.db, listId, now);
    const jwt = await signStatusList(
      this.ctx.signer,
      listId,
      encodeStatusList(STATUS_LIST_SIZE, invalid),
      now,
    );
    this.cached = { listId, jwt, builtAt: performance.now() };
    return jwt;
  }
}
