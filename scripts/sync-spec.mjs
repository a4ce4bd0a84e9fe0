// Keeps docs/spec/ a copy of the interface and design documents the code cites, so that a clone of
// this repository alone has no dangling references. The originals live in ../shared/ (beside the
// repository, where the project's specification is kept); SPEC_SOURCE names another place.
//
//   node scripts/sync-spec.mjs          copy ../shared/… over docs/spec/ (make sync-spec)
//   node scripts/sync-spec.mjs --check  fail when ../shared/ exists and differs from docs/spec/;
//                                       pass with a notice when ../shared/ is absent (a clone alone)
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = path.resolve(root, process.env.SPEC_SOURCE ?? '../shared');
const target = path.join(root, 'docs', 'spec');

/** Where each copied document comes from, under the source directory. */
const DOCUMENTS = {
  'service-interface.md': 'spec/service-interface.md',
  'contracts.md': 'design/contracts.md',
  'architecture.md': 'design/architecture.md',
  'style.md': 'design/style.md',
};

const check = process.argv.includes('--check');
const shown = (file) => path.relative(root, file) || '.';

const missingCopies = Object.keys(DOCUMENTS).filter((name) => !existsSync(path.join(target, name)));
if (!existsSync(source)) {
  if (missingCopies.length > 0) {
    console.error(
      `docs/spec/ lacks ${missingCopies.join(', ')} and ${shown(source)} is absent to copy from.`,
    );
    process.exit(1);
  }
  console.log(`spec: ${shown(source)} is absent; docs/spec/ is taken as it is (nothing to compare).`);
  process.exit(0);
}

const differing = [];
for (const [name, from] of Object.entries(DOCUMENTS)) {
  const original = path.join(source, from);
  const copy = path.join(target, name);
  if (!existsSync(original)) {
    console.error(`spec: ${original} is missing from the source.`);
    process.exit(1);
  }
  const same = existsSync(copy) && readFileSync(copy).equals(readFileSync(original));
  if (same) continue;
  differing.push(name);
  if (!check) {
    mkdirSync(target, { recursive: true });
    copyFileSync(original, copy);
  }
}

if (check && differing.length > 0) {
  console.error(
    `spec: docs/spec/ differs from ${shown(source)} in ${differing.join(', ')}: run \`make sync-spec\` and commit.`,
  );
  process.exit(1);
}
if (check) console.log(`spec: docs/spec/ matches ${shown(source)}.`);
else
  console.log(
    differing.length === 0 ? 'spec: docs/spec/ already up to date.' : `spec: copied ${differing.join(', ')}.`,
  );
