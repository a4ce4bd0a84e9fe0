// Points every citation of the specification at the copies in docs/spec/ (scripts/sync-spec.mjs):
// `../shared/spec/X.md` and `../shared/design/X.md` become the path to docs/spec/X.md from the
// citing file, and a bare `contracts.md §2` or `contracts §2` (likewise service-interface.md,
// architecture.md, style.md) becomes `docs/spec/contracts.md §2`. Deterministic and idempotent:
// run it again after a merge.
//
//   node scripts/rewrite-spec-citations.mjs          rewrite the tracked files in place
//   node scripts/rewrite-spec-citations.mjs --check  list the files it would change; fail if any
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NAMES = ['service-interface', 'contracts', 'architecture', 'style'];
const names = NAMES.join('|');
// `../shared/spec/contracts.md`, `../../shared/design/style.md`, …
const sharedPath = new RegExp(`(?:\\.\\./)+shared/(?:spec|design)/(${names})\\.md`, 'g');
// A bare document name: not already part of a path, a longer name or a URL.
const bareName = new RegExp(`(?<![\\w./@-])(${names})\\.md\\b`, 'g');
// `contracts §6`, the short form of `contracts.md §6`.
const shortContracts = /(?<![\w./@-])contracts(?= §)/g;

const TEXT = /\.(?:ts|tsx|js|mjs|cjs|md|ya?ml|json|sh)$|(?:^|\/)(?:Makefile|Dockerfile)$/;
// The copies themselves stay byte for byte what ../shared holds; this script cites itself.
const SKIP = [/^docs\/spec\//, /^scripts\/(?:rewrite-spec-citations|sync-spec)\.mjs$/, /^pnpm-lock\.yaml$/];

/** The text with every citation pointing into docs/spec/, for a file at `file` (repository-relative). */
export function rewrite(text, file) {
  const fromDir = path.posix.dirname(file);
  return text
    .replace(sharedPath, (_m, name) => path.posix.relative(fromDir, `docs/spec/${name}.md`))
    .replace(bareName, (_m, name) => `docs/spec/${name}.md`)
    .replace(shortContracts, 'docs/spec/contracts.md');
}

function trackedFiles() {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  });
  return [...new Set(out.split('\0'))]
    .filter((file) => file !== '' && TEXT.test(file) && !SKIP.some((skip) => skip.test(file)))
    .sort();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  const changed = [];
  for (const file of trackedFiles()) {
    const full = path.join(root, file);
    if (!existsSync(full)) continue; // deleted in the work tree, not yet in the index
    const before = readFileSync(full, 'utf8');
    const after = rewrite(before, file);
    if (after === before) continue;
    changed.push(file);
    if (!check) writeFileSync(full, after);
  }
  if (check && changed.length > 0) {
    console.error(
      `spec citations outside docs/spec/ in ${changed.length} file(s): run \`node scripts/rewrite-spec-citations.mjs\`\n  ` +
        changed.join('\n  '),
    );
    process.exit(1);
  }
  console.log(
    check
      ? 'spec citations: every one points into docs/spec/.'
      : `spec citations: ${changed.length} file(s) rewritten.`,
  );
}
