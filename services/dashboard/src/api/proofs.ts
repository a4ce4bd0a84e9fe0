import { api, unwrap } from './client';

// Proof anyone can check (docs/spec/contracts.md §16, issue #31): what the pages know of a resource's place in
// the transparency log, a license's credential, and the shape of a verification's report. The
// checks themselves are in proof-checks.ts, loaded when a verification is opened.

/** Where a decision about a resource sits in the transparency log (the resource's `logEntry`). */
export interface LogEntryRef {
  index: number;
  /** Base64 of the SHA-256 leaf hash. */
  leafHash: string;
}

/**
 * The `logEntry` a resource carries once its newest decision is in the log; undefined before
 * (or while the API does not send it yet).
 */
export function logEntryOf(resource: unknown): LogEntryRef | undefined {
  const entry = (resource as { logEntry?: unknown } | null | undefined)?.logEntry;
  if (typeof entry !== 'object' || entry === null) return undefined;
  const { index, leafHash } = entry as { index?: unknown; leafHash?: unknown };
  return typeof index === 'number' && typeof leafHash === 'string' ? { index, leafHash } : undefined;
}

export type CheckOutcome = 'passed' | 'failed' | 'not checked';

/** One thing a verification checked, in words a page shows. */
export interface Check {
  label: string;
  outcome: CheckOutcome;
  detail: string;
}

export interface Fact {
  label: string;
  value: string;
}

/** What a verification found: every check, the reason it failed (if it did) and what the proof says. */
export interface ProofReport {
  verified: boolean;
  /** The failed check's reason code (the SDK's for a credential), with its explanation. */
  failure?: { reason: string; explanation: string; message: string };
  checks: Check[];
  /** What the proof states: verified when `verified`, else as claimed (unverified). */
  facts: Fact[];
  /** The proof itself (the compact JWS, or the entry's bytes as text). */
  raw?: string;
}

/** What the page knows of the license a credential should stand for. */
export interface ExpectedLicense {
  licenseId: string;
  identityName?: string | undefined;
  tier?: string | undefined;
  platformId?: string | undefined;
  boxId?: string | undefined;
}

/** The credential of an active license, as its compact JWS (a platform saves it as `<id>.jwt`). */
export async function licenseCredential(licenseId: string): Promise<string> {
  const { data } = await unwrap(
    api.GET('/v1/svc/licenses/{id}/credential', { params: { path: { id: licenseId } } }),
  );
  return data.credential;
}
