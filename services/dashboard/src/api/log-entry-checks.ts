import type { JWKS } from '@svc/sdk/credentials';
import {
  fromBase64,
  leafHashOf,
  toBase64,
  verifyInclusionProof,
  verifyTreeHead,
} from '@svc/sdk/transparency';
import { api, unwrap } from './client';
import { formatTimestamp } from './format';
import { ApiError } from './http';
import type { Fact, LogEntryRef, ProofReport } from './proofs';
import { browserFetch, claimedOf, text } from './proof-reading';

// A logged decision checked in the browser: its entry, leaf hash, signed tree head and inclusion proof.

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
