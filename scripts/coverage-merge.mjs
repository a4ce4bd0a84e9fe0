#!/usr/bin/env node
// One line-coverage report over the unit, integration and e2e tests (issue #33, docs/adr/0040).
//
//   node scripts/coverage-merge.mjs [--lines=N] [--out=coverage/merged] [--children=DIR] [JEST_JSON...]
//
// Inputs: the coverage-final.json files jest writes for the code it runs in its own processes
// (V8's counters mapped back to src/ through swc's source maps), and the raw V8 dumps
// (NODE_V8_COVERAGE) of the child processes the e2e and integration tests start: the embedded
// default and the cluster run services' dist/ JavaScript, mapped back to src/ through tsc's source
// maps. The dumps of every process are merged first (one conversion per script, not one per
// process), then everything is merged by source location into one istanbul map of src/ files.
// Output: text summary on stdout, lcov and json-summary under --out. With --lines=N it exits 1
// when lines are below N %.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mergeProcessCovs } from '@bcoe/v8-coverage';
import libCoverage from 'istanbul-lib-coverage';
import libReport from 'istanbul-lib-report';
import reports from 'istanbul-reports';
import v8ToIstanbul from 'v8-to-istanbul';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WORST_SHOWN = 15;

// The files that count: what jest.config.js's collectCoverageFrom names, said once more for the
// children's files (src/ of packages/ and services/, not the test kit, the dashboard or generated code).
function counts(file) {
  const relative = path.relative(ROOT, file).split(path.sep).join('/');
  if (!/^(packages|services)\/[^/]+\/src\/.+\.tsx?$/.test(relative)) return false;
  if (relative.endsWith('.d.ts') || /\.generated\.ts$/.test(relative)) return false;
  return !/^(packages\/test-kit|services\/dashboard)\//.test(relative);
}

// A module of types only (interfaces, ports) compiles to nothing but tsc's preamble: no line of it
// can run, yet V8 counts every line of a file no test loaded (and a types-only import never loads
// it). Such files are left out, as generated types are; a file missing from dist/ stays counted.
const PREAMBLE =
  /^("use strict";|Object\.defineProperty\(exports, "__esModule", \{ value: true \}\);|\/\/# sourceMappingURL=.*)?$/;
function typesOnly(file) {
  const compiled = file.replace(/\/src\/(.+)\.tsx?$/, '/dist/$1.js');
  if (compiled === file || !existsSync(compiled)) return false;
  return readFileSync(compiled, 'utf8')
    .split('\n')
    .every((line) => PREAMBLE.test(line.trim()));
}

// A child's script worth converting: compiled JavaScript of the workspace, not its dependencies.
const DIST_SCRIPT = new RegExp(
  `^${pathToFileURL(ROOT).href.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/(packages|services)/(?!test-kit/|dashboard/)[^/]+/dist/(?!.*node_modules).+\\.js$`,
);

function parseArgs(argv) {
  const options = { lines: undefined, out: 'coverage/merged', children: undefined, jest: [] };
  for (const arg of argv) {
    const [key, value] = arg.split('=', 2);
    if (key === '--lines') options.lines = Number(value);
    else if (key === '--out') options.out = value;
    else if (key === '--children') options.children = value;
    else options.jest.push(arg);
  }
  return options;
}

/** The children's dumps merged into one process coverage, only the workspace's dist/ scripts kept. */
function mergedChildren(dir) {
  let merged = { result: [] };
  let dumps = 0;
  for (const name of readdirSync(dir).filter((file) => file.endsWith('.json'))) {
    let dump;
    try {
      dump = JSON.parse(readFileSync(path.join(dir, name), 'utf8'));
    } catch {
      continue; // A process killed while writing leaves a partial file.
    }
    const result = (dump.result ?? []).filter((script) => DIST_SCRIPT.test(script.url));
    if (result.length === 0) continue;
    merged = mergeProcessCovs([merged, { result }]);
    dumps += 1;
  }
  return { merged, dumps };
}

async function childrenMap(dir) {
  const map = libCoverage.createCoverageMap({});
  if (dir === undefined || !existsSync(dir)) return { map, dumps: 0, scripts: 0 };
  const { merged, dumps } = mergedChildren(dir);
  for (const script of merged.result) {
    const converter = v8ToIstanbul(fileURLToPath(script.url), 0, undefined, (file) => !counts(file));
    await converter.load();
    converter.applyCoverage(script.functions);
    map.merge(converter.toIstanbul());
    converter.destroy();
  }
  return { map, dumps, scripts: merged.result.length };
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const map = libCoverage.createCoverageMap({});
  for (const file of options.jest) {
    if (!existsSync(file)) throw new Error(`no coverage at ${file}`);
    map.merge(JSON.parse(readFileSync(file, 'utf8')));
  }
  const children = await childrenMap(options.children);
  map.merge(children.map);
  const typeFiles = map.files().filter((file) => counts(file) && typesOnly(file));
  map.filter((file) => counts(file) && !typeFiles.includes(file));

  const out = path.resolve(ROOT, options.out);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const context = libReport.createContext({ dir: out, coverageMap: map, defaultSummarizer: 'nested' });
  for (const reporter of ['lcovonly', 'json-summary', 'text-summary'])
    reports.create(reporter, { file: reporter === 'lcovonly' ? 'lcov.info' : undefined }).execute(context);
  console.log(
    `Merged: ${options.jest.length} jest report(s), ${children.dumps} child process dump(s) ` +
      `(${children.scripts} scripts), ${map.files().length} source files (${typeFiles.length} of types only left out); lcov at ${path.relative(ROOT, out)}/lcov.info`,
  );

  // Where the uncovered lines are: the files with the most, the first place to add a test.
  const worst = map
    .files()
    .map((file) => ({ file: path.relative(ROOT, file), lines: map.fileCoverageFor(file).toSummary().lines }))
    .sort((a, b) => b.lines.total - b.lines.covered - (a.lines.total - a.lines.covered));
  writeFileSync(
    path.join(out, 'uncovered-lines.txt'),
    worst.map(({ file, lines }) => `${lines.total - lines.covered}\t${lines.pct} %\t${file}`).join('\n') +
      '\n',
  );
  console.log('Most uncovered lines (all in uncovered-lines.txt):');
  for (const { file, lines } of worst.slice(0, WORST_SHOWN))
    console.log(
      `  ${String(lines.total - lines.covered).padStart(5)} of ${String(lines.total).padStart(5)}  ${file}`,
    );

  const lines = map.getCoverageSummary().lines.pct;
  if (options.lines !== undefined && !(lines >= options.lines)) {
    console.error(
      `Lines over unit, integration and e2e: ${lines} % is below the threshold of ${options.lines} %`,
    );
    process.exitCode = 1;
  }
}

await main();
