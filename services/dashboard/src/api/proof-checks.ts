import {
  checkLicenseCredential,
  createKeyCache,
  CredentialVerificationError,
  verifyStatusList,
  type CredentialFailureReason,
  type JWKS,
  type VerifiedCredential,
} from '@svc/sdk/credentials';
import {
  fromBase64,
  leafHashOf,
  toBase64,
  verifyInclusionProof,
  verifyTreeHead,
} from '@svc/sdk/transparency';
import { api, unwrap } from './client';
import { nowMs } from './clock';
import { formatTimestamp } from './format';
import { ApiError } from './http';
import {
  licenseCredential,
  type Check,
  type CheckOutcome,
  type ExpectedLicense,
  type Fact,
  type LogEntryRef,
  type ProofReport,
} from './proofs';

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

/** Same-origin fetch: the dashboard's Content-Security-Policy allows no other (connect-src 'self'). */
function sameOrigin(url: string): string {
  const parsed = new URL(url, window.location.origin);
  return parsed.origin === window.location.origin ? parsed.href : `${parsed.pathname}${parsed.search}`;
}

const browserFetch: typeof fetch = (input, init) =>
  fetch(sameOrigin(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url), {
    ...init,
    credentials: 'omit',
  });

interface Claimed {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
}

/** The header and claims as written, before any check (shown as unverified when a check fails). */
function claimedOf(jws: string): Claimed | undefined {
  const [header, payload] = jws.split('.');
  try {
    const decode = (part: string) =>
      JSON.parse(new TextDecoder().decode(fromBase64(part))) as Record<string, unknown>;
    return { header: decode(header ?? ''), payload: decode(payload ?? '') };
  } catch {
    return undefined;
  }
}

const text = (value: unknown) =>
  Array.isArray(value) ? value.map(String).join(', ') : value === undefined ? '—' : String(value);

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

type LogStep = 'entry' | 'leaf' | 'head' | 'inclusion';

const LOG_LABELS: Record<LogStep, string> = {
  entry: 'Entry read',
  leaf: 'Leaf hash',
  head: 'Signed tree head',
  inclusion: 'Included in the log',
};

const LOG_EXPLANATIONS: Record<string, string> = {
  entry_unreadable: 'the entry could not be read (only the parties to a decision read it)',
  leaf_hash_mismatch: 'the entry’s text does not hash to the leaf hash the resource carries',
  bad_tree_head: 'the tree head’s signature is not the log’s (no key of the published set verifies it)',
  not_included: 'the audit path does not lead from this leaf to the signed root',
};

/** A JWS header's `kid`, read without checking (the signature is checked separately). */
function kidOf(jws: string): string {
  const kid = claimedOf(jws)?.header.kid;
  return typeof kid === 'string' ? kid : '(none)';
}

function parsedEntry(entry: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(entry) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function decisionFacts(decision: Record<string, unknown>, appendedAt: string): Fact[] {
  const pairs = (value: unknown) =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? Object.entries(value)
          .map(([key, item]) => `${key}: ${typeof item === 'object' ? JSON.stringify(item) : String(item)}`)
          .join(', ') || 'none'
      : text(value);
  const at = typeof decision.at === 'string' ? formatTimestamp(decision.at) : text(decision.at);
  return [
    { label: 'Decision', value: text(decision.decision) },
    { label: 'Decided', value: at },
    { label: 'Identity', value: text(decision.identityName) },
    { label: 'Subject', value: pairs(decision.subject) },
    { label: 'Facts', value: pairs(decision.facts) },
    { label: 'Appended to the log', value: formatTimestamp(appendedAt) },
  ];
}

/**
 * Verifies a logged decision here: reads the entry (its parties only), recomputes its leaf hash
 * (SHA-256 of 0x00 and the entry's bytes) and compares it with the resource's, checks the newest
 * tree head's signature against the published key set, and checks the inclusion proof of that
 * leaf against the signed root.
 */
export async function verifyLogEntryHere(ref: LogEntryRef): Promise<ProofReport> {
  const steps: LogStep[] = ['entry', 'leaf', 'head', 'inclusion'];
  const passed: Partial<Record<LogStep, string>> = {};
  // What the entry says, once read: shown whatever the later checks find.
  const read: { facts: Fact[]; raw?: string } = { facts: [] };
  const report = (failedStep?: LogStep, reason?: string, message?: string): ProofReport => {
    const failedAt = failedStep === undefined ? steps.length : steps.indexOf(failedStep);
    return {
      verified: failedStep === undefined,
      ...(reason === undefined
        ? {}
        : { failure: { reason, explanation: LOG_EXPLANATIONS[reason] ?? reason, message: message ?? '' } }),
      checks: steps.map((step, i) => ({
        label: LOG_LABELS[step],
        outcome: i < failedAt ? 'passed' : i === failedAt ? 'failed' : 'not checked',
        detail: i === failedAt ? (message ?? '') : (passed[step] ?? ''),
      })),
      facts: read.facts,
      ...(read.raw === undefined ? {} : { raw: read.raw }),
    };
  };

  let entry;
  try {
    entry = (
      await unwrap(
        api.GET('/v1/svc/transparency/entries/{index}', { params: { path: { index: ref.index } } }),
      )
    ).data;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      return report('entry', 'entry_unreadable', `Entry #${ref.index}: ${error.message}`);
    }
    throw error;
  }
  read.raw = entry.entry;
  // The decision shown is the one in the bytes that are hashed, not the answer's parsed copy.
  read.facts = decisionFacts(parsedEntry(entry.entry) ?? entry.decision, entry.appendedAt);
  passed.entry = `Entry #${entry.index} of the log, appended ${formatTimestamp(entry.appendedAt)}`;

  const leaf = await leafHashOf(new TextEncoder().encode(entry.entry));
  const recomputed = toBase64(leaf);
  if (recomputed !== ref.leafHash) {
    return report(
      'leaf',
      'leaf_hash_mismatch',
      `SHA-256(0x00 ‖ entry) is ${recomputed}; the resource says ${ref.leafHash}`,
    );
  }
  passed.leaf = `SHA-256(0x00 ‖ entry), computed here, is ${recomputed}: the resource’s leaf hash`;

  const [{ data: head }, keys] = await Promise.all([
    unwrap(api.GET('/v1/svc/transparency/tree-head')),
    browserFetch('/.well-known/jwks.json', { headers: { accept: 'application/json' } }).then(
      async (response) => {
        if (!response.ok) throw new Error(`/.well-known/jwks.json answered ${response.status}`);
        return (await response.json()) as JWKS;
      },
    ),
  ]);
  if (!(await verifyTreeHead(head, keys))) {
    return report(
      'head',
      'bad_tree_head',
      `The head of size ${head.treeSize} is not signed by a key of /.well-known/jwks.json`,
    );
  }
  passed.head = `Size ${head.treeSize}, root ${head.rootHash}, signed ${formatTimestamp(head.timestamp)} by key ${kidOf(
    head.signature,
  )} of /.well-known/jwks.json`;

  let proof;
  try {
    proof = (
      await unwrap(
        api.GET('/v1/svc/transparency/proofs/inclusion', {
          params: { query: { leafHash: ref.leafHash, treeSize: head.treeSize } },
        }),
      )
    ).data;
  } catch (error) {
    if (error instanceof ApiError && error.status < 500) {
      return report('inclusion', 'not_included', `The log gave no proof: ${error.message}`);
    }
    throw error;
  }
  const included =
    proof.leafIndex === ref.index &&
    (await verifyInclusionProof({
      leafHash: leaf,
      index: proof.leafIndex,
      treeSize: head.treeSize,
      proof: proof.auditPath.map(fromBase64),
      rootHash: fromBase64(head.rootHash),
    }));
  if (!included) {
    return report(
      'inclusion',
      'not_included',
      proof.leafIndex === ref.index
        ? `The audit path of ${proof.auditPath.length} hashes does not lead to root ${head.rootHash}`
        : `The log places the leaf at #${proof.leafIndex}, the resource at #${ref.index}`,
    );
  }
  passed.inclusion = `The audit path of ${proof.auditPath.length} ${
    proof.auditPath.length === 1 ? 'hash leads' : 'hashes lead'
  } from leaf #${ref.index} to the signed root of size ${head.treeSize}`;
  return report();
}
