import {
  checkLicenseCredential,
  createKeyCache,
  CredentialVerificationError,
  verifyStatusList,
  type CredentialFailureReason,
  type JWKS,
  type VerifiedCredential,
} from '@svc/sdk/credentials';
import { nowMs } from './clock';
import { formatTimestamp } from './format';
import {
  licenseCredential,
  type Check,
  type CheckOutcome,
  type ExpectedLicense,
  type Fact,
  type ProofReport,
} from './proofs';
import { browserFetch, claimedOf, text } from './proof-reading';
export * from './log-entry-checks';

// Proofs checked in the browser (docs/spec/contracts.md §16, issue #31) with the SDK's own checks and the keys
// the service publishes, so the page shows what was checked rather than asking to be believed.
// Loaded only when a verification is opened (components/ProofPanel.tsx imports it on demand): the
// SDK's crypto and the status list decoder stay out of the pages' bundle, and nothing here runs
// on a page load.

type Reason = CredentialFailureReason | 'other_license';

const EXPLANATIONS: Record<Reason, string> = {
  malformed: 'it is not a well-formed license credential',
  wrong_type: 'it is not a license credential signed with Ed25519 (type or algorithm)',
  unknown_key: 'it names a key the published key set does not hold',
  bad_signature: 'its signature does not verify: it was altered, or not signed by this service',
  wrong_issuer: 'it was issued by another service',
  not_yet_valid: 'its period has not begun',
  expired: 'its period has ended',
  revoked: 'the license was revoked, cancelled or has lapsed (its bit is set in the status list)',
  status_list_invalid: 'the status list that says whether it was revoked did not verify',
  other_license: 'it stands for another license than the one shown here',
};

// The credential's checks in the order they are listed; the SDK stops at the first that fails,
// so the ones after it are not checked, and a reason is placed no later than where the SDK finds it.
const CREDENTIAL_STEPS: { step: string; reasons: Reason[] }[] = [
  { step: 'format', reasons: ['malformed'] },
  { step: 'type', reasons: ['wrong_type'] },
  { step: 'key', reasons: ['unknown_key'] },
  { step: 'signature', reasons: ['bad_signature'] },
  { step: 'issuer', reasons: ['wrong_issuer'] },
  { step: 'period', reasons: ['not_yet_valid', 'expired'] },
  { step: 'status', reasons: ['revoked', 'status_list_invalid'] },
  { step: 'covers', reasons: ['other_license'] },
];

/** A JWT date (seconds since 1970) in the reader's words. */
const seconds = (value: unknown) => (typeof value === 'number' ? formatTimestamp(value * 1000) : text(value));

function claimFacts(payload: Record<string, unknown>): Fact[] {
  return [
    { label: 'License', value: text(payload.sub) },
    { label: 'Identity', value: text(payload.identityName) },
    { label: 'Tier', value: text(payload.tier) },
    { label: 'Platform', value: text(payload.platformId) },
    { label: 'Allowed uses', value: text(payload.allowedUses) || 'none listed' },
    { label: 'Box', value: text(payload.boxId) },
    { label: 'Claim', value: text(payload.claimId) },
    { label: 'Valid from', value: seconds(payload.nbf) },
    { label: 'Expires', value: seconds(payload.exp) },
  ];
}

/** Where the claims differ from what the page shows of the license, in words; empty when they agree. */
function differences(verified: VerifiedCredential, expected: ExpectedLicense): string[] {
  const { license } = verified;
  const pairs: [string, string, string | undefined][] = [
    ['license', license.id, expected.licenseId],
    ['identity', license.identityName, expected.identityName],
    ['tier', license.tier, expected.tier],
    ['platform', license.platformId, expected.platformId],
    ['box', license.boxId, expected.boxId],
  ];
  return pairs
    .filter(([, claimed, shown]) => shown !== undefined && claimed !== shown)
    .map(([what, claimed, shown]) => `${what} is ${claimed}, not ${String(shown)}`);
}

/**
 * Fetches an active license's credential, the published key set and the status list the
 * credential names, and runs the SDK's `checkLicenseCredential` here, in the browser: signature
 * by a published key, type, issuer (this deployment), period and revocation bit; then that the
 * claims are those of the license shown.
 */
export async function verifyLicenseCredentialHere(expected: ExpectedLicense): Promise<ProofReport> {
  const credential = await licenseCredential(expected.licenseId);
  const claimed = claimedOf(credential);
  const issuer = window.location.origin;
  // A cache of its own: each verification fetches the key set and the list anew.
  const cache = createKeyCache(issuer, { fetch: browserFetch });
  const kid = typeof claimed?.header.kid === 'string' ? claimed.header.kid : '(none)';
  let verified: VerifiedCredential | undefined;
  let failure: ProofReport['failure'];
  try {
    verified = await checkLicenseCredential(credential, cache);
    const wrong = differences(verified, expected);
    if (wrong.length > 0) {
      failure = {
        reason: 'other_license',
        explanation: EXPLANATIONS.other_license,
        message: wrong.join('; '),
      };
    }
  } catch (error) {
    if (!(error instanceof CredentialVerificationError)) throw error;
    failure = {
      reason: error.reason,
      explanation: EXPLANATIONS[error.reason],
      message: error.message.replace(`${error.reason}: `, ''),
    };
  }
  const keys: JWKS | undefined = await cache.keys().catch(() => undefined);
  const keyCount = keys?.keys.length ?? 0;
  const status = verified?.status;
  // The list the SDK checked the bit in (already fetched and decoded: read from the cache).
  const list =
    status === undefined || keys === undefined
      ? undefined
      : await verifyStatusList(await cache.statusList(status.uri), { keys }).catch(() => undefined);
  const details: Record<string, string> = {
    format: 'A compact JWS (header, claims, signature) with every claim of a license credential',
    type: `alg ${text(claimed?.header.alg)}, typ ${text(claimed?.header.typ)}: a license credential signed with Ed25519`,
    key: `Key ${kid} is ${
      keyCount === 1 ? 'the key' : `one of the ${keyCount} keys`
    } published at /.well-known/jwks.json`,
    signature: `The Ed25519 signature verifies with key ${kid}`,
    issuer: `Issued by ${text(claimed?.payload.iss)}; this deployment is ${issuer}`,
    period: `Not before ${seconds(claimed?.payload.nbf)}, expires ${seconds(claimed?.payload.exp)}; now is ${formatTimestamp(nowMs())}`,
    status:
      status === undefined
        ? 'The revocation bit in the status list the credential names'
        : `Bit ${status.idx} of the status list ${status.uri}${
            list === undefined
              ? ''
              : ` (signed by key ${list.keyId}, issued ${formatTimestamp(list.issuedAt)}) is ${list.statusOf(status.idx)}`
          }: active, not revoked`,
    covers: `The claims are those of license ${expected.licenseId}${
      expected.identityName === undefined ? '' : ` of ${expected.identityName}`
    }${expected.tier === undefined ? '' : `, tier ${expected.tier}`}${
      expected.platformId === undefined ? '' : `, for platform ${expected.platformId}`
    }`,
  };
  const labels: Record<string, string> = {
    format: 'Well-formed',
    type: 'Type',
    key: 'Signing key published',
    signature: 'Signature',
    issuer: 'Issuer',
    period: 'Valid now',
    status: 'Not revoked (status list)',
    covers: 'Covers this license',
  };
  const failedAt =
    failure === undefined
      ? CREDENTIAL_STEPS.length
      : CREDENTIAL_STEPS.findIndex(({ reasons }) => reasons.includes(failure.reason as Reason));
  const checks = CREDENTIAL_STEPS.map(({ step }, i): Check => {
    const outcome: CheckOutcome = i < failedAt ? 'passed' : i === failedAt ? 'failed' : 'not checked';
    const detail = outcome === 'failed' && failure !== undefined ? failure.message : (details[step] ?? '');
    return { label: labels[step] ?? step, outcome, detail };
  });
  return {
    verified: failure === undefined,
    ...(failure === undefined ? {} : { failure }),
    checks,
    facts: claimed === undefined ? [] : claimFacts(claimed.payload),
    raw: credential,
  };
}
