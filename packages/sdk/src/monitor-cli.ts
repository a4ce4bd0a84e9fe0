#!/usr/bin/env node
import { readFile, rename, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { checkTransparencyLog, type MonitorReport, type TreeHead } from './transparency';

// `npx svc-transparency-monitor --base-url https://api.example.com` (docs/spec/contracts.md §16): a small
// monitor of the transparency log, as Certificate Transparency's monitors are. Every interval it
// fetches the signed tree head, checks its signature against the published keys and proves it an
// extension of the head it verified last (kept in a state file across runs). It reports a fork, a
// rollback or a bad signature and exits 1; it never forgets the last good head because of one.

const USAGE = `usage: svc-transparency-monitor --base-url <url> [--state <file>] [--interval <seconds>] [--once]

  --base-url   the deployment's public base URL (the credentials' iss)
  --state      where the last verified tree head is kept (default .svc-transparency-head.json)
  --interval   seconds between looks (default 300); ignored with --once
  --once       look once and exit: 0 when the log is consistent, 1 on a fork, rollback or bad signature`;

export interface MonitorRun {
  baseUrl: string;
  stateFile: string;
  fetch?: typeof fetch;
  /** Where lines go (default: stdout). */
  print?: (line: string) => void;
}

const ALERTS = new Set<MonitorReport['kind']>(['fork', 'rollback', 'bad_signature']);

async function lastHead(stateFile: string): Promise<TreeHead | undefined> {
  try {
    return JSON.parse(await readFile(stateFile, 'utf8')) as TreeHead;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read the state file ${stateFile}: ${(err as Error).message}`, { cause: err });
  }
}

/** What a report says, in one line a person or a log collector reads. */
export function describeReport(report: MonitorReport): string {
  const at = (head: TreeHead) => `size ${head.treeSize} root ${head.rootHash} (${head.timestamp})`;
  switch (report.kind) {
    case 'first':
      return `first look: ${at(report.head)}, signature verified`;
    case 'unchanged':
      return `unchanged: ${at(report.head)}`;
    case 'grew':
      return `grew from size ${report.from.treeSize} to ${at(report.head)}: consistency proof verified`;
    case 'rollback':
      return `ALERT rollback: the log answered ${at(report.head)} after signing ${at(report.from)}`;
    case 'fork':
      return `ALERT fork: ${at(report.head)} is not an extension of ${at(report.from)}`;
    default:
      return `ALERT bad signature: ${at(report.head)} is not signed by a published key`;
  }
}

/**
 * One look: checks the log against the head kept in `stateFile`, keeps the new head when it is
 * consistent (written atomically), and returns the report. An alert keeps the old head.
 */
export async function monitorOnce(run: MonitorRun): Promise<MonitorReport> {
  const print = run.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const last = await lastHead(run.stateFile);
  const report = await checkTransparencyLog({
    baseUrl: run.baseUrl,
    ...(last === undefined ? {} : { last }),
    ...(run.fetch === undefined ? {} : { fetch: run.fetch }),
  });
  print(`${new Date().toISOString()} ${describeReport(report)}`);
  if (!ALERTS.has(report.kind)) {
    const temporary = `${run.stateFile}.tmp`;
    await writeFile(temporary, `${JSON.stringify(report.head)}\n`);
    await rename(temporary, run.stateFile);
  }
  return report;
}

/** The command: exit status 0 while the log is consistent, 1 on an alert, 2 on bad usage. */
export async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        'base-url': { type: 'string' },
        state: { type: 'string', default: '.svc-transparency-head.json' },
        interval: { type: 'string', default: '300' },
        once: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const interval = Number(values.interval);
  if (values.help || values['base-url'] === undefined || !(interval > 0)) {
    process.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const run = { baseUrl: values['base-url'], stateFile: values.state };
  for (;;) {
    try {
      const report = await monitorOnce(run);
      if (ALERTS.has(report.kind)) return 1;
    } catch (err) {
      // The log unreachable is not evidence of anything: say so, and look again next time.
      process.stderr.write(
        `${new Date().toISOString()} could not check the log: ${(err as Error).message}\n`,
      );
      if (values.once) return 2;
    }
    if (values.once) return 0;
    await new Promise((resolve) => setTimeout(resolve, interval * 1000));
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
