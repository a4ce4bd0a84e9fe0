import { sleep } from '@svc/test-kit';
import type { RequestRecord, WorkloadClient } from './client';
import type { Death } from './fault-cluster';
import type { FaultRow } from './fault-report';
import {
  deliveryPipeline,
  duplicateRows,
  logSize,
  transparencyLog,
  undeliveredWebhooks,
  type InsideContext,
  type LogTally,
  whyDeliveredTwice,
  whyNoViolation,
} from './inside-checks';
import { checkChains, duplicateClaims, type Finding } from './outside-checks';
import type { WebhookReceiver } from './webhook-receiver';
import type { Workload } from './workload';

// One fault under the workload: load before, the fault, load after; then wait for the system to
// settle and say, from outside and inside, what was acknowledged, lost or doubled, whether any
// 500 was answered or any process died, and how long recovery took.

/** What a fault run needs from its deployment. */
export interface Bench {
  workload: Workload;
  /** The client of the checks (shorter deadlines than the workload's). */
  checker: WorkloadClient;
  receiver: WebhookReceiver;
  /** The databases and broker, when the suite owns them (cluster mode). */
  inside?: InsideContext;
  deaths: Death[];
  /** The services' warnings and errors about one request (cluster mode), to explain its 5xx answer. */
  warningsAbout?: (requestId: string) => string[];
  /** Restarts whatever died, so the next fault starts from a whole deployment. */
  reviveDead(): Promise<string[]>;
  /** Findings already reported by an earlier fault (a global check sees them again). */
  reported: Set<string>;
  /**
   * Every instant a fault killed a webhook dispatcher. Its deliveries answered 200 in the 2 s
   * before may be sent again by the replica that takes its endpoints over once their lease (6 s)
   * runs out: possibly after that fault's own checks, so every later fault excuses them too.
   */
  dispatcherKills: { at: number; inFlightMs: number }[];
}

export interface FaultSpec {
  label: string;
  /** Runs the fault and resolves once it is over (the dependency is back). */
  inject(): Promise<void>;
  /** True once the route the fault hit answers again. */
  probe(): Promise<boolean>;
  /** Load before the fault (default 4 s) and after it ends (default 3 s). */
  warmupMs?: number;
  afterMs?: number;
  /**
   * How long the system may take to settle once the load stopped (default 90 s: after a 10 s
   * outage the retry backoffs, 1, 2, 4, 8, 16, 32 s, can put the next attempt half a minute out,
   * and at a load average near 20 on two cores settling took up to 54 s of the old 60).
   */
  settleMs?: number;
  /** Chains checked at once (default 4: the machine is small; the soak's thousands of chains take more). */
  checkConcurrency?: number;
  /**
   * When the fault killed the webhook dispatcher: deliveries answered 200 in the 2 s before this
   * instant may be sent again (their outcome died with the process; at least once, docs/spec/contracts.md §10).
   */
  dispatcherKilledAt?: () => number;
  /**
   * How long before that kill a delivery answered 200 may still have been unrecorded (default 2 s):
   * longer where the dispatcher shares its event loop with heavy work (the embedded default).
   */
  inFlightMs?: number;
  /**
   * Which 502, 503 and 504 answers during this fault are problems: 'any' (no fault, or one a
   * deployment must absorb, as a rolling restart), 'without-retry-after' (a 502, a 504, or a 503
   * that does not say when to come back: issue #34 allows only 503 with Retry-After during a
   * fault). By default none are, only 500s.
   */
  unavailable?: 'any' | 'without-retry-after';
}

export interface FaultOutcome {
  row: FaultRow;
  /** Everything wrong, one line each ([] when the fault was survived). */
  problems: string[];
  /** The problems grouped by kind: a count, the kind and one example each. */
  summary: string[];
  /** What the fault was allowed to do and did (a 503 with Retry-After), one line per route. */
  notes: string[];
}

/** Groups problems that differ only by chain and ids: `12x lost: ... (e.g. chain 7 ...)`. */
export function summarize(problems: string[]): string[] {
  const groups = new Map<string, { count: number; example: string }>();
  for (const problem of problems) {
    const key = problem
      .replace(/chain \d+ (\([^)]*\): )?/g, '')
      .replace(/\b[a-z]+_[0-9A-Za-z]{10,}\b/g, '<id>')
      .replace(/faults-avatar-\d+/g, '<avatar>')
      .replace(/^(doubled: )\d+ /, '$1');
    const group = groups.get(key);
    if (group === undefined) groups.set(key, { count: 1, example: problem });
    else group.count++;
  }
  return [...groups].map(([key, g]) =>
    g.count === 1 ? g.example : `${g.count}x ${key} (e.g. ${g.example})`,
  );
}

/** Where a round of checks leaves what it counted in the transparency log. */
interface LogCount {
  /** The log's size when the fault began (its first entry's index), when it could be read. */
  fromIndex: number | undefined;
  tally: LogTally | null;
}

async function findings(
  bench: Bench,
  spec: FaultSpec,
  since: Date,
  deadline: number,
  log: LogCount,
): Promise<Finding[]> {
  const chains = bench.workload.of(spec.label);
  const killedAt = spec.dispatcherKilledAt?.();
  if (killedAt !== undefined && killedAt > 0 && !bench.dispatcherKills.some((kill) => kill.at === killedAt))
    bench.dispatcherKills.push({ at: killedAt, inFlightMs: spec.inFlightMs ?? 2000 });
  const inFlight = bench.dispatcherKills.map(({ at, inFlightMs }) => ({ from: at - inFlightMs, to: at }));
  const found = await checkChains(
    bench.checker,
    bench.receiver,
    chains,
    deadline,
    inFlight,
    spec.checkConcurrency,
  );
  if (bench.inside !== undefined) {
    found.push(...(await duplicateRows(bench.inside, chains)));
    found.push(...(await undeliveredWebhooks(bench.inside, since)));
    found.push(...(await deliveryPipeline(bench.inside, since)).findings);
    log.tally = null;
    const logged = await transparencyLog(bench.inside, chains, since, log.fromIndex ?? 0);
    found.push(...logged.findings);
    log.tally = logged.tally;
    // Each fault must put the log to work: its chains box and license, and report avatars.
    if (!chains.some((c) => c.boxId !== undefined))
      found.push({
        kind: 'lost',
        what: 'the workload boxed nothing during the fault: the transparency log was not exercised',
      });
  } else {
    found.push(...(await duplicateClaims(bench.checker, chains)));
  }
  return found.filter((f) => !bench.reported.has(f.what));
}

async function deadLetters(bench: Bench): Promise<Map<string, number>> {
  if (bench.inside === undefined) return new Map();
  const depths = new Map<string, number>();
  for (const q of await bench.inside.broker.queues())
    if (q.name.endsWith('.dlq')) depths.set(q.name, q.messages);
  return depths;
}

/** Runs one fault under the workload and reports on it. */
export async function runUnderFault(bench: Bench, spec: FaultSpec): Promise<FaultOutcome> {
  const log: LogCount = {
    fromIndex: bench.inside === undefined ? undefined : await logSize(bench.inside).catch(() => undefined),
    tally: null,
  };
  const since = new Date();
  const deathsBefore = bench.deaths.length;
  const lettersBefore = await deadLetters(bench);
  const { workload, checker } = bench;
  checker.window = spec.label;
  workload.start(spec.label);
  let faultEnd = 0;
  let apiBack: number | null = null;
  try {
    await sleep(spec.warmupMs ?? 4000);
    await spec.inject();
    faultEnd = performance.now();
    // Whatever died during the fault is restarted at once, as a supervisor would (the death is
    // still reported): the rest of the run then shows what the survivors lost.
    await bench.reviveDead().catch(() => undefined);
    const probeDeadline = faultEnd + 60_000;
    while (performance.now() < probeDeadline) {
      if (await spec.probe().catch(() => false)) {
        apiBack = (performance.now() - faultEnd) / 1000;
        break;
      }
      await sleep(100);
    }
    const after = (spec.afterMs ?? 3000) - (performance.now() - faultEnd);
    if (after > 0) await sleep(after);
  } finally {
    await workload.stop();
  }

  // Settling: the checks are asked again until they all pass or the budget is spent; each
  // round is bounded too (a dead route must not hold the suite).
  await bench.reviveDead().catch(() => undefined);
  const settleDeadline = performance.now() + (spec.settleMs ?? 90_000);
  let settled: number | null = null;
  let last: Finding[] = [];
  for (;;) {
    const roundDeadline = Math.max(settleDeadline, performance.now() + 20_000);
    last = await findings(bench, spec, since, roundDeadline, log).catch((err: unknown) => [
      { kind: 'lost' as const, what: `the checks failed: ${(err as Error).message}` },
    ]);
    // Settled: nothing missing any more (a doubled row or webhook cannot un-happen).
    if (last.every((f) => f.kind === 'doubled')) {
      settled = (performance.now() - faultEnd) / 1000;
      break;
    }
    if (performance.now() > settleDeadline) break;
    await sleep(2000);
  }

  const problems: string[] = await Promise.all(
    last.map(async (f) => `${f.kind}: ${f.what}${await diagnosis(bench, f.what)}`),
  );
  for (const f of last) bench.reported.add(f.what);

  const records = [...workload.client.records, ...checker.records].filter((r) => r.window === spec.label);
  const writes = workload.client.records.filter(
    (r) => r.window === spec.label && r.idempotencyKey !== undefined,
  );
  const internal = records.filter((r) => r.statuses.includes(500));
  const why = (requestId: string | null): string => whyAnswered(bench, requestId);
  const internalErrors = failuresByRoute(
    records,
    (f, route) => (f.status === 500 ? { key: route, problem: true } : undefined),
    why,
  );
  for (const [route, { seen }] of internalErrors)
    problems.push(`500: ${seen.length} answers to ${route} (${seen.slice(0, 4).join('; ')})`);
  // Every 502, 503 and 504 is told, with when and what it said: a problem when the spec says so,
  // otherwise a note, so that an answer the fault allowed still names its source.
  const notes: string[] = [];
  const unavailable = failuresByRoute(
    records,
    (f, route) => {
      if (f.status !== 502 && f.status !== 503 && f.status !== 504) return undefined;
      const allowed =
        spec.unavailable === undefined ||
        (spec.unavailable === 'without-retry-after' && f.status === 503 && f.retryAfter !== null);
      return {
        key: `${f.status}${f.retryAfter === null ? ' (no Retry-After)' : ''} to ${route}`,
        problem: !allowed,
      };
    },
    why,
  );
  // Attempts with no answer at all (timed out, reset, refused), which the client retried.
  const unanswered = new Map<string, number>();
  for (const r of records) {
    const count = r.statuses.filter((status) => status === 0).length;
    if (count > 0)
      unanswered.set(
        `${r.method} ${routeName(r.path)}`,
        (unanswered.get(`${r.method} ${routeName(r.path)}`) ?? 0) + count,
      );
  }
  for (const [route, count] of unanswered)
    notes.push(`unanswered: ${count} attempts to ${route} (timed out or reset; retried)`);
  for (const [route, { problem, seen }] of unavailable)
    (problem ? problems : notes).push(
      `unavailable: ${seen.length} answers ${route} (${seen.slice(0, 4).join('; ')})`,
    );
  // Contracts §7: a retried write gets its answer or runs; a 409 "answer lost" leaves the client
  // unable to tell, however the write went.
  for (const r of writes.filter((w) => w.answerLost === true))
    problems.push(`answer lost: ${r.method} ${routeName(r.path)} was told its answer was lost (409)`);

  const refused = workload.of(spec.label).filter((c) => c.stopped !== undefined);
  for (const c of refused) problems.push(`refused: chain ${c.no} stopped at ${c.stopped}`);

  const died = bench.deaths.slice(deathsBefore);
  for (const d of died)
    problems.push(
      `died: ${d.name} (code ${d.code}, signal ${d.signal}); last output:\n    ${lastWords(d.output).join('\n    ')}`,
    );
  await bench.reviveDead().catch(() => undefined);

  const lettersAfter = await deadLetters(bench).catch(() => new Map<string, number>());
  for (const [queue, depth] of lettersAfter) {
    const added = depth - (lettersBefore.get(queue) ?? 0);
    if (added > 0) problems.push(`dead-lettered: ${added} messages in ${queue}`);
  }

  const row: FaultRow = {
    fault: spec.label,
    writes: writes.length,
    acknowledged: writes.filter((r) => r.acknowledged).length,
    refused: refused.length,
    internalErrors: internal.reduce((n, r) => n + r.statuses.filter((s) => s === 500).length, 0),
    lost: last.filter((f) => f.kind === 'lost').length,
    doubled: last.filter((f) => f.kind === 'doubled').length,
    deaths: died.length,
    apiBackAfterS: apiBack,
    settledAfterS: settled,
    ...(bench.inside === undefined ? {} : { log: log.tally }),
    passed: problems.length === 0,
  };
  return { row, problems, summary: summarize(problems), notes };
}

/**
 * For an avatar that never became a violation, what the databases say about it (cluster mode):
 * the avatar, its box's initial scan and detection's projection, so that a failure in CI explains
 * itself.
 */
async function diagnosis(bench: Bench, what: string): Promise<string> {
  const twice = /^webhook (evt_\w+) .* delivered again after a 200/.exec(what);
  if (bench.inside !== undefined && twice?.[1] !== undefined) {
    const eventId = twice[1];
    return `\n    inside: ${await whyDeliveredTwice(bench.inside, eventId).catch((err: unknown) => `(not read: ${(err as Error).message})`)}`;
  }
  const lost = /avatar (faults-avatar-\d+) on box (box_\w+) never became a violation/.exec(what);
  if (bench.inside === undefined || lost === null) return '';
  const [, avatarId, boxId] = lost;
  if (avatarId === undefined || boxId === undefined) return '';
  return `\n    inside: ${await whyNoViolation(bench.inside, avatarId, boxId).catch((err: unknown) => `(not read: ${(err as Error).message})`)}`;
}

/**
 * What the services logged about a request answered 5xx (cluster mode): each process's warning or
 * error naming its request id, with the error's whole chain of causes, so that a CI log explains
 * the answer without the processes' own logs.
 */
function whyAnswered(bench: Bench, requestId: string | null): string {
  if (requestId === null || bench.warningsAbout === undefined) return '';
  const told = bench.warningsAbout(requestId).map((line) => {
    const [, name = '?', json = ''] = /^\[([^\]]+)\] (.*)$/.exec(line) ?? [];
    // Read by pattern, not JSON.parse: a kept line may be cut short inside the error's stack.
    const said =
      /"err":\{"type":"[^"]*","message":"((?:[^"\\]|\\.)*)"/.exec(json)?.[1] ??
      /"msg":"((?:[^"\\]|\\.)*)"/.exec(json)?.[1] ??
      json;
    return `${name}: ${said.slice(0, 400)}`;
  });
  return told.length === 0 ? ` [request ${requestId}]` : ` [request ${requestId}: ${told.join(' | ')}]`;
}

/** A path with its ids left out, to group answers by route. */
function routeName(path: string): string {
  return path.replace(/(claim|box|lic|req|viol|gp|av|we)_[0-9A-Za-z]+/g, '$1_…');
}

/** A dead process's last log lines, and its whole stderr (where Node writes an uncaught error's stack). */
function lastWords(output: string[]): string[] {
  const stderrAt = output.indexOf('--- stderr ---');
  if (stderrAt === -1) return output.slice(-8);
  return [...output.slice(Math.max(0, stderrAt - 8), stderrAt), ...output.slice(stderrAt, stderrAt + 81)];
}

type Failure = NonNullable<RequestRecord['failures']>[number];

/**
 * The failed answers `pick` keeps, grouped under the key it gives (with the route, `METHOD
 * /path/{id}`), each told by its second and message; a group is a problem when its first is.
 */
function failuresByRoute(
  records: RequestRecord[],
  pick: (failure: Failure, route: string) => { key: string; problem: boolean } | undefined,
  why: (requestId: string | null) => string,
): Map<string, { problem: boolean; seen: string[] }> {
  const groups = new Map<string, { problem: boolean; seen: string[] }>();
  for (const r of records)
    for (const f of r.failures ?? []) {
      const picked = pick(f, `${r.method} ${routeName(r.path)}`);
      if (picked === undefined) continue;
      const group = groups.get(picked.key) ?? { problem: picked.problem, seen: [] };
      group.seen.push(`${f.at.toFixed(1)} s ${f.said}${why(f.requestId)}`);
      groups.set(picked.key, group);
    }
  return groups;
}
