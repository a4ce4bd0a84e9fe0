import { SignJWT } from 'jose';
import { platformNow } from '@svc/clock';
import { errors } from '@svc/errors';
import type { Queryable } from '@svc/ports';
import type { License, LicenseTerms, Tier } from './license';
import type { Caller, LicensingContext, StatusEntry, StoredCredential } from './ports';
import type { SigningKey } from './signing-keys';

/** The one status list so far, and its size (2^20 entries; docs/adr/0029, When a list fills). */
export const STATUS_LIST_ID = 1;
export const STATUS_LIST_SIZE = 2 ** 20;

/** What each tier allows (docs/adr/0029, allowedUses); `nsfw` is added when the license's terms allow it. */
export const TIER_USES: Readonly<Record<Tier, readonly string[]>> = {
  personal: ['personal'],
  creator: ['personal', 'creator_content'],
  commercial: ['personal', 'creator_content', 'commercial'],
  enterprise: ['personal', 'creator_content', 'commercial', 'enterprise'],
};

export function allowedUsesOf(tier: Tier, terms: Pick<LicenseTerms, 'nsfw'>): string[] {
  return [...TIER_USES[tier], ...(terms.nsfw ? ['nsfw'] : [])];
}

/** The public URI of a status list: `${issuer}/v1/svc/status-lists/${id}`. */
export function statusListUri(issuer: string, listId: number): string {
  return `${issuer.replace(/\/+$/, '')}/v1/svc/status-lists/${listId}`;
}

const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

/**
 * The compact JWS of a license (docs/spec/contracts.md §16): EdDSA, `typ` license+jwt, `exp` the license's
 * current period end. `status` carries §16's `{idx, uri}` and the IETF Token Status List's
 * `status_list` with the same values.
 */
export function signCredential(
  key: SigningKey,
  issuer: string,
  license: License,
  entry: StatusEntry,
  now: Date,
): Promise<string> {
  const uri = statusListUri(issuer, entry.listId);
  return new SignJWT({
    boxId: license.boxId,
    claimId: license.claimId,
    identityName: license.identityName,
    platformId: license.licenseePlatformId,
    tier: license.tier,
    allowedUses: allowedUsesOf(license.tier, license.terms),
    status: { idx: entry.idx, uri, status_list: { idx: entry.idx, uri } },
  })
    .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'license+jwt' })
    .setIssuer(issuer.replace(/\/+$/, ''))
    .setSubject(license.id)
    .setIssuedAt(seconds(now))
    .setNotBefore(seconds(license.validFrom))
    .setExpirationTime(seconds(license.expiresAt))
    .sign(key.privateKey);
}

/**
 * Signs and stores a new credential for an active license, in the caller's transaction (activation,
 * renewal, upgrade): the license keeps its status list entry, allocated the first time.
 */
export async function issueCredential(
  ctx: LicensingContext,
  tx: Queryable,
  license: License,
  now: Date,
): Promise<StoredCredential> {
  const entry = await ctx.credentials.statusEntryOf(tx, license.id);
  const key = ctx.signer.key();
  const credential: StoredCredential = {
    licenseId: license.id,
    kid: key.kid,
    credential: await signCredential(key, ctx.signer.issuer, license, entry, now),
    issuedAt: now,
    expiresAt: license.expiresAt,
  };
  await ctx.credentials.insert(tx, credential);
  return credential;
}

/**
 * `GET /v1/svc/licenses/{id}/credential`: the newest credential of an active license, for its
 * licensee and the box owner (anyone else 404). A license active since before credentials existed,
 * or whose newest credential was signed by a key since retired, gets a new one now.
 */
export async function getCredential(
  ctx: LicensingContext,
  caller: Caller,
  id: string,
): Promise<StoredCredential> {
  return ctx.db.transaction(async (tx) => {
    const license = await ctx.licenses.find(tx, id);
    if (
      license === null ||
      (license.licenseePlatformId !== caller.platformId && license.boxOwnerPlatformId !== caller.platformId)
    ) {
      throw errors.notFound('License', id);
    }
    if (license.status !== 'active') {
      throw errors.invalidState(`License ${id} is ${license.status}: it has no valid credential`, {
        status: license.status,
      });
    }
    const newest = await ctx.credentials.newest(tx, id);
    if (
      newest !== null &&
      newest.expiresAt.getTime() === license.expiresAt.getTime() &&
      newest.kid === ctx.signer.key().kid
    ) {
      return newest;
    }
    // Active before credentials existed, or signed by a key since retired: a new one, by the current key.
    const locked = await ctx.licenses.find(tx, id, { lock: true });
    if (locked === null) throw errors.notFound('License', id);
    return issueCredential(ctx, tx, locked, await platformNow(ctx, tx, locked.licenseePlatformId));
  });
}
