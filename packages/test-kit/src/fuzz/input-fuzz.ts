import fc from 'fast-check';
import { requestJson } from '../http';
import {
  operationsOf,
  requestArbitrary,
  type FuzzOperation,
  type FuzzRequest,
  type IdPool,
} from './request-arbitraries';
import {
  type JsonObject,
  type Victim,
  letters,
  newPlatform,
  resourcesOf,
  readVictim,
} from './fuzz-platforms';
import { ranOutOfTime, send, problemWith } from './fuzz-answers';

// The input fuzz of issue #13: requests for every operation of the SERVED OpenAPI document, sent
// by an attacking platform while a victim platform's resources exist. Shared by the embedded
// default (integration) and cluster mode (e2e).

export interface InputFuzzOptions {
  gatewayUrl: string;
  adminToken: string;
  /** Requests generated per operation (default 40). */
  runsPerOperation?: number;
  /** Stop sending after this long (default 150 s); the report says how many were sent. */
  timeBudgetMs?: number;
  /** fast-check seed (default: random, printed in the report so a run can be replayed). */
  seed?: number;
  /** Requests in flight at once (default 1). */
  concurrency?: number;
}

export interface FuzzFailure {
  request: Pick<FuzzRequest, 'operationId' | 'label' | 'method' | 'url' | 'sender'>;
  status: number;
  problem: string;
  body: string;
}

export interface InputFuzzReport {
  seed: number;
  operations: number;
  generated: number;
  sent: number;
  byStatus: Record<string, number>;
  serverErrors: number;
  failures: FuzzFailure[];
  /** Victim resources that read differently after the fuzz (should be none). */
  victimChanges: string[];
  summary: string;
}

/**
 * Fuzzes every operation of the gateway's served OpenAPI document and reports what broke the
 * rules of issue #13: never a 5xx, always the error envelope with a closed code, nothing of the
 * victim platform in the attacker's answers, and the victim's resources unchanged.
 */
export async function fuzzEveryOperation(options: InputFuzzOptions): Promise<InputFuzzReport> {
  const { gatewayUrl, adminToken } = options;
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const runs = options.runsPerOperation ?? 40;
  const deadline = performance.now() + (options.timeBudgetMs ?? 150_000);

  const victimMarker = letters(16);
  const attackerMarker = letters(16);
  const victimPlatform = await newPlatform(gatewayUrl, adminToken, `Victim ${victimMarker}`);
  const attacker = await newPlatform(gatewayUrl, adminToken, `Attacker ${attackerMarker}`);
  const v = await resourcesOf(gatewayUrl, victimPlatform, victimMarker);
  const a = await resourcesOf(gatewayUrl, attacker, attackerMarker);
  const license = await requestJson(gatewayUrl, attacker.key, 'POST', '/v1/svc/licenses/request', {
    boxId: v.boxId,
    tier: 'personal',
    useCase: 'fuzz',
    acceptGuidelines: true,
  });
  const licenseData = ((license.body as JsonObject | undefined)?.data ?? {}) as JsonObject;

  const victim: Victim = {
    platform: victimPlatform,
    // The verified claim and its box are public (docs/spec/contracts.md §6); these are not.
    markers: [
      `Pendrix ${victimMarker}`,
      `Avatarix ${victimMarker}`,
      `creator-${victimMarker}`,
      `hook ${victimMarker}`,
      `${victimMarker}@example.com`,
      `https://hooks.invalid/${victimMarker}`,
    ],
    ids: [
      v.claimId,
      v.boxId,
      v.pendingClaimId,
      v.avatarId,
      ...(v.webhookId === undefined ? [] : [v.webhookId]),
    ],
    reads: [
      {
        path: `/v1/svc/claims/${v.claimId}`,
        fields: ['name', 'variations', 'status', 'verificationTier', 'referenceImages', 'hasBox'],
      },
      {
        path: `/v1/svc/claims/${v.pendingClaimId}`,
        fields: ['name', 'variations', 'status', 'referenceImages'],
      },
      {
        path: `/v1/svc/boxes/${v.boxId}`,
        fields: ['claimId', 'policy', 'enforcement', 'policyConfig', 'status'],
      },
      {
        path: `/v1/svc/avatars/${v.avatarId}`,
        fields: ['name', 'description', 'creatorId', 'creatorEmail', 'userCount', 'commercial', 'imageUrl'],
      },
      ...(v.webhookId === undefined
        ? []
        : [{ path: `/v1/svc/webhooks/${v.webhookId}`, fields: ['url', 'events', 'description', 'status'] }]),
    ],
  };
  const before = await readVictim(gatewayUrl, victim);

  const pools: IdPool = {
    key: [
      ...victim.ids,
      a.claimId,
      a.boxId,
      a.pendingClaimId,
      a.avatarId,
      ...(a.webhookId === undefined ? [] : [a.webhookId]),
      ...[licenseData.id, (licenseData.license as JsonObject | undefined)?.id].filter(
        (id): id is string => typeof id === 'string',
      ),
    ],
    // The operator may do anything; it is aimed at the attacker's side only, and never at the attacker's key.
    admin: [attacker.id, a.pendingClaimId, a.claimId],
  };

  const served = await requestJson(gatewayUrl, undefined, 'GET', '/v1/svc/openapi.json');
  const doc = served.body as JsonObject;
  const operations: FuzzOperation[] = operationsOf(doc);
  const perOperation = operations.map((op, index) =>
    fc.sample(requestArbitrary(op, doc, pools), { numRuns: runs, seed: seed + index }),
  );
  // Round-robin over the operations so a time budget cuts every operation short evenly.
  const requests: FuzzRequest[] = [];
  for (let round = 0; round < runs; round++) {
    for (const list of perOperation) {
      const request = list[round];
      if (request !== undefined) requests.push(request);
    }
  }

  const tokens: Record<string, string | undefined> = {
    key: `Bearer ${attacker.key}`,
    admin: `Bearer ${adminToken}`,
    none: undefined,
    garbage: `Bearer svc_test_${letters(40)}`,
  };
  const byStatus: Record<string, number> = {};
  const failures: FuzzFailure[] = [];
  let sent = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < requests.length && performance.now() < deadline) {
      const request = requests[next++] as FuzzRequest;
      let status = 0;
      let text = '';
      try {
        ({ status, text } = await send(gatewayUrl, request, tokens));
      } catch {
        // A kept-alive socket the server closed after an early answer (413, 415) fails the next
        // request on it: send once more on a fresh one; a server that cannot answer fails again.
        try {
          ({ status, text } = await send(gatewayUrl, request, tokens));
        } catch (err) {
          text = `${String(err)} ${String((err as { cause?: unknown }).cause ?? '')}`;
        }
      }
      // A 503 that says the answer ran out of time (a bounded route on a busy machine) says
      // nothing about the input: a client retries it, and so does the fuzz, once, after a pause.
      // An answer the input caused comes back the same; only that second answer counts.
      if (status === 503 && ranOutOfTime(text)) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        try {
          ({ status, text } = await send(gatewayUrl, request, tokens));
        } catch (err) {
          status = 0;
          text = `${String(err)} ${String((err as { cause?: unknown }).cause ?? '')}`;
        }
      }
      sent++;
      byStatus[status] = (byStatus[status] ?? 0) + 1;
      const problem = status === 0 ? 'no answer' : problemWith(status, text, request, victim.markers);
      if (problem !== undefined) {
        const { operationId, label, method, url, sender } = request;
        failures.push({
          request: { operationId, label, method, url: url.slice(0, 200), sender },
          status,
          problem,
          body: text.slice(0, 300),
        });
      }
    }
  };
  // One at a time by default: the same seed then replays the same states, so a failure reproduces.
  await Promise.all(Array.from({ length: options.concurrency ?? 1 }, () => worker()));

  const after = await readVictim(gatewayUrl, victim);
  const victimChanges = after
    .filter((line, i) => line !== before[i])
    .map((line, i) => `${before[i] ?? ''} -> ${line}`);
  const serverErrors = Object.entries(byStatus)
    .filter(([status]) => Number(status) >= 500)
    .reduce((sum, [, count]) => sum + count, 0);
  const summary =
    `input fuzz (seed ${seed}): ${operations.length} operations, ${requests.length} requests generated, ${sent} sent, ` +
    `${serverErrors} answered 5xx, ${failures.length} broke a rule, ${victimChanges.length} victim changes; ` +
    `statuses ${JSON.stringify(byStatus)}`;
  return {
    seed,
    operations: operations.length,
    generated: requests.length,
    sent,
    byStatus,
    serverErrors,
    failures,
    victimChanges,
    summary,
  };
}
