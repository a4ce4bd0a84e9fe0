import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { LogTally } from './inside-checks';

/** One row of the closing table: what one fault did to the workload. */
export interface FaultRow {
  fault: string;
  /** Writes the client sent / had acknowledged. */
  writes: number;
  acknowledged: number;
  /** Chains that stopped on a refused write (after the client's retries). */
  refused: number;
  /** Answers with status 500 (retried ones included). */
  internalErrors: number;
  lost: number;
  doubled: number;
  /** Processes that died without being killed on purpose. */
  deaths: number;
  /** Seconds from the end of the fault until the API served the affected route again. */
  apiBackAfterS: number | null;
  /** Seconds from the end of the fault until nothing was missing any more (null: not within the budget). */
  settledAfterS: number | null;
  /**
   * The transparency log after the fault (inside checks, cluster only): decisions announced /
   * entries appended during it, decisions without an entry, entries doubled or without a decision,
   * and whether the root of all entries is the signed tree head's. null: the log could not be read.
   */
  log?: LogTally | null;
  passed: boolean;
}

/** Where rows are kept between test files, so `make test-faults` prints one table. */
export const REPORT_DIR = path.resolve(__dirname, '..', 'coverage', 'faults');

function seconds(value: number | null): string {
  return value === null ? 'never' : `${value.toFixed(1)} s`;
}

/** `decisions/entries, missing, doubled, root`: the root is `✓ n` when every signed head matches. */
function logCell(log: LogTally | null | undefined): string {
  if (log === undefined) return '–';
  if (log === null) return 'not read';
  const root = log.consistent ? `✓ ${log.headSize ?? 0}` : '✗';
  return `${log.decisions}/${log.entries}, ${log.missing}, ${log.doubled}, ${root}`;
}

/** The rows as a Markdown table (pasteable into a closing note). */
export function formatTable(rows: FaultRow[]): string {
  const header =
    '| fault | writes acked/sent | refused | 500s | lost | doubled | deaths | log: decisions/entries, missing, doubled, root | API back after | settled after | result |';
  const rule = '|---|---|---|---|---|---|---|---|---|---|---|';
  const lines = rows.map(
    (r) =>
      `| ${r.fault} | ${r.acknowledged}/${r.writes} | ${r.refused} | ${r.internalErrors} | ${r.lost} | ${r.doubled} | ${r.deaths} | ${logCell(r.log)} | ${seconds(r.apiBackAfterS)} | ${seconds(r.settledAfterS)} | ${r.passed ? 'pass' : 'FAIL'} |`,
  );
  return [header, rule, ...lines].join('\n');
}

/** Keeps one file's rows for the combined table. */
export function saveRows(file: string, title: string, rows: FaultRow[]): void {
  mkdirSync(REPORT_DIR, { recursive: true });
  writeFileSync(path.join(REPORT_DIR, `${file}.json`), JSON.stringify(rows, null, 2));
  writeFileSync(path.join(REPORT_DIR, `${file}.md`), `${title}\n\n${formatTable(rows)}\n\n`);
}

/** Every saved row, in file name order. */
export function savedRows(): FaultRow[] {
  try {
    return readdirSync(REPORT_DIR)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .flatMap((f) => JSON.parse(readFileSync(path.join(REPORT_DIR, f), 'utf8')) as FaultRow[]);
  } catch {
    return [];
  }
}

/** Every problem of a fault, one per line, in coverage/faults/problems.log (the summary shows groups). */
export function saveProblems(fault: string, problems: string[]): void {
  mkdirSync(REPORT_DIR, { recursive: true });
  const lines = problems.length === 0 ? ['(none)'] : problems;
  appendFileSync(path.join(REPORT_DIR, 'problems.log'), `## ${fault}\n${lines.join('\n')}\n\n`);
}
