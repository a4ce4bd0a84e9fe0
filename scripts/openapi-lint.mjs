// `make openapi-lint`: Redocly CLI's recommended rules (redocly.yaml) over the served OpenAPI
// document, packages/sdk/openapi.json. Fails on any error or warning: redocly itself fails on
// errors only. The exceptions the specification forces are in redocly.yaml and
// .redocly.lint-ignore.yaml, each with its reason.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const redocly = path.join(root, 'node_modules/.bin/redocly');
const document = 'packages/sdk/openapi.json';

const run = (format) =>
  spawnSync(redocly, ['lint', document, `--format=${format}`], { cwd: root, encoding: 'utf8' });

const json = run('json');
let totals;
try {
  totals = JSON.parse(json.stdout).totals;
} catch {
  process.stderr.write(json.stdout + json.stderr);
  console.error('redocly lint did not answer with JSON');
  process.exit(1);
}
if (totals.errors + totals.warnings > 0) {
  const stylish = run('stylish');
  process.stdout.write(stylish.stdout);
  console.error(`${document}: ${totals.errors} errors and ${totals.warnings} warnings (none allowed)`);
  process.exit(1);
}
console.log(`${document}: Redocly recommended rules pass (${totals.ignored} problems ignored on purpose)`);
