import { CompactSign } from 'jose';
import type { Clock } from '@svc/clock';
import type { EventEnvelope } from '@svc/contracts/common';
import { logEntryAppended } from '@svc/contracts/licensing';
import { errors } from '@svc/errors';
import type { Queryable } from '@svc/ports';
import { canonicalJson, type TransparencyLog, type TreeHeadSigner } from '@svc/transparency-log';
import type { LogEntryRef } from './license';
import type { LicenseStore } from './ports';
import type { SigningKey } from './signing-keys';
import { decisionsOf } from './transparency-entries';

// The transparency log licensing keeps (docs/spec/contracts.md §16, docs/adr/0030): decisions appended from the
// events that announce them, tree heads signed with the current credential key, proofs for anyone,
// entries for their parties only.

export interface TransparencyDeps {
  log: TransparencyLog;
  clock: Clock;
  /** The key that signs now (the same ring as credentials: /.well-known/jwks.json lists it). */
  key(): SigningKey;
}

/** What appending needs besides the log: where licenses keep their entry, and the outbox. */
export interface AppendDeps extends TransparencyDeps {
  licenses: Pick<LicenseStore, 'recordLogEntries'>;
  /** Records events in the outbox, in the caller's transaction. */
  outbox(tx: Queryable, ...events: EventEnvelope[]): Promise<void>;
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/**
 * Appends the decisions events announce, in the caller's transaction (the inbox record's: one per
 * batch of events), and tells the resource each is about where it sits: a license directly, a
 * box, violation or appeal through `licensing.log_entry.appended` to the service that owns it.
 */
export async function appendDecisions(
  deps: AppendDeps,
  tx: Queryable,
  received: readonly EventEnvelope[],
): Promise<number> {
  const now = deps.clock.now();
  const decisions = received.flatMap((event) =>
    decisionsOf(event).map((decision) => ({ ...decision, platformId: event.platformId })),
  );
  const positions = await deps.log.appendMany(
    tx,
    decisions.map(({ sourceId, decision, parties }) => ({
      sourceId,
      entry: canonicalJson(decision),
      parties,
      at: now,
    })),
  );
  const licenses = new Map<string, LogEntryRef>();
  const events: EventEnvelope[] = [];
  decisions.forEach(({ decision, resource, platformId }, i) => {
    const position = positions[i];
    if (position === undefined || !position.appended) return;
    const at = { index: position.index, leafHash: b64(position.leafHash) };
    if (resource.type === 'license') licenses.set(resource.id, at);
    events.push(
      logEntryAppended.create(
        {
          ...at,
          decision: decision.decision,
          resourceType: resource.type,
          resourceId: resource.id,
          boxId: resource.boxId,
        },
        { occurredAt: now, ...(platformId === undefined ? {} : { platformId }) },
      ),
    );
  });
  // Positions grow with the order of appending: the last one per license is its newest.
  if (licenses.size > 0) await deps.licenses.recordLogEntries(tx, licenses);
  if (events.length > 0) await deps.outbox(tx, ...events);
  return events.length;
}

/** A tree head's signature: a compact JWS (EdDSA, the current kid) over its canonical payload. */
export function treeHeadSigner(key: () => SigningKey): TreeHeadSigner {
  return async (payload) => {
    const current = key();
    return new CompactSign(payload)
      .setProtectedHeader({ alg: 'EdDSA', kid: current.kid, typ: 'tree-head+jws' })
      .sign(current.privateKey);
  };
}

export async function newestTreeHead(deps: TransparencyDeps, q: Queryable) {
  const head = await deps.log.signedTreeHead(q, treeHeadSigner(deps.key), deps.clock.now());
  return {
    treeSize: head.treeSize,
    rootHash: b64(head.rootHash),
    timestamp: head.timestamp.toISOString(),
    signature: head.signature,
  };
}

/** The audit path of a leaf, in the tree of `treeSize` (default: the newest signed head's). */
export async function inclusionProofOf(
  deps: TransparencyDeps,
  q: Queryable,
  input: { leafHash: string; treeSize?: number | undefined },
) {
  const size = input.treeSize ?? (await newestTreeHead(deps, q)).treeSize;
  const current = await deps.log.size(q);
  if (size > current) {
    throw errors.validation(`The log holds ${current} entries`, {
      fields: [{ field: 'treeSize', message: `at most ${current}` }],
    });
  }
  const leaf = Buffer.from(input.leafHash, 'base64');
  const index = await deps.log.find(q, leaf, size);
  if (index === null) throw errors.notFound('Log entry with leaf hash', input.leafHash);
  const auditPath = await deps.log.inclusionProof(q, index, size);
  return { leafIndex: index, treeSize: size, auditPath: auditPath.map(b64) };
}

export async function consistencyProofOf(
  deps: TransparencyDeps,
  q: Queryable,
  input: { first: number; second: number },
) {
  const current = await deps.log.size(q);
  if (input.first > input.second || input.second > current) {
    throw errors.validation(`first must be at most second, and second at most ${current} (the log's size)`, {
      fields: [{ field: input.first > input.second ? 'first' : 'second', message: 'out of range' }],
    });
  }
  const proof = await deps.log.consistencyProof(q, input.first, input.second);
  return { first: input.first, second: input.second, proof: proof.map(b64) };
}

/** An entry, for the parties it concerns; anyone else learns nothing (404, as for a missing one). */
export async function entryFor(deps: TransparencyDeps, q: Queryable, platformId: string, index: number) {
  const entry = await deps.log.entry(q, index);
  if (entry === null || !entry.parties.includes(platformId))
    throw errors.notFound('Log entry', String(index));
  const text = entry.entry.toString('utf8');
  return {
    index: entry.index,
    leafHash: b64(entry.leafHash),
    entry: text,
    decision: JSON.parse(text) as Record<string, unknown>,
    appendedAt: entry.appendedAt.toISOString(),
  };
}
