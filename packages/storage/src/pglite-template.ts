import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * A new PGlite database starts from a copy of one made earlier, not from its own initdb.
 *
 * initdb takes PGlite about 1.8 s of CPU (measured here, 2026-11-29, quiet machine); copying the
 * 39 MB directory it leaves and opening the copy takes 0.29 s, and loading its tar into memory
 * 0.35 s. The embedded default's first start creates seven databases and the tests create hundreds
 * in memory. The copy is made once per user and PGlite version, under the system's temporary
 * directory, and never changes: a database's own migrations run on its copy, as on a new cluster.
 */
// One per user (the temporary directory is shared): a cluster another account could have put
// there is never copied into ours (templateRoot checks the owner and the mode).
// SVC_PGLITE_TEMPLATE_DIR puts it elsewhere (the tests' refusal case).
const TEMPLATE_ROOT =
  process.env.SVC_PGLITE_TEMPLATE_DIR ??
  path.join(os.tmpdir(), `svc-pglite-template-${process.getuid?.() ?? 'user'}`);
// Written last, inside the directory renamed into place: a template without it is not used.
const READY = 'ready';

export interface PgliteTemplate {
  /** A cleanly shut-down data directory, to copy. */
  dir: string;
  /** The same cluster as PGlite's dumpDataDir tar, for `loadDataDir` (in-memory databases). */
  tar: string;
}

let made: Promise<PgliteTemplate | undefined> | undefined;
let tarBytes: Promise<Buffer> | undefined;

/** The installed PGlite's version (its package.json is not among the package's exports: found from its entry). */
function pgliteVersion(): string {
  let dir = path.dirname(require.resolve('@electric-sql/pglite'));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (name === '@electric-sql/pglite' && version !== undefined) return version;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('the installed PGlite has no package.json');
    dir = parent;
  }
}

/**
 * The template of this PGlite version, made on first use; undefined if it cannot be made, or when
 * SVC_PGLITE_TEMPLATE=off (make bench-startup measures initdb that way): then each runs initdb.
 */
export function pgliteTemplate(): Promise<PgliteTemplate | undefined> {
  if (process.env.SVC_PGLITE_TEMPLATE === 'off') return Promise.resolve(undefined);
  made ??= makeTemplate().catch((err: unknown) => {
    process.emitWarning(`no PGlite template, each new database runs initdb: ${(err as Error).message}`);
    return undefined;
  });
  return made;
}

/** The user's template directory, made private; refused if another account owns it or may write in it. */
async function templateRoot(): Promise<string> {
  await mkdir(TEMPLATE_ROOT, { recursive: true, mode: 0o700 });
  const stat = lstatSync(TEMPLATE_ROOT);
  const uid = process.getuid?.();
  if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid) || (stat.mode & 0o022) !== 0) {
    throw new Error(`${TEMPLATE_ROOT} is not a directory of this user's that only it can write to`);
  }
  return TEMPLATE_ROOT;
}

async function makeTemplate(): Promise<PgliteTemplate> {
  const home = path.join(await templateRoot(), pgliteVersion());
  const template = { dir: path.join(home, 'pgdata'), tar: path.join(home, 'pgdata.tar') };
  if (existsSync(path.join(home, READY))) return template;
  // Made aside, then renamed into place in one step: a process making it at the same time (a
  // jest worker) or one killed half-way never leaves a half-made template where it is looked for.
  const work = path.join(TEMPLATE_ROOT, `.making-${process.pid}-${randomBytes(6).toString('hex')}`);
  try {
    await mkdir(work);
    const { PGlite } = await import('@electric-sql/pglite');
    const pglite = await PGlite.create({ dataDir: path.join(work, 'pgdata') });
    const dump = await pglite.dumpDataDir('none');
    await pglite.close();
    await writeFile(path.join(work, 'pgdata.tar'), Buffer.from(await dump.arrayBuffer()));
    await writeFile(path.join(work, READY), '');
    await rename(work, home);
  } catch (err) {
    await rm(work, { recursive: true, force: true });
    // Another process renamed its template into place first: that one is as good.
    if (!existsSync(path.join(home, READY))) throw err;
  }
  return template;
}

/**
 * Gives `dataDir` a copy of the template when it holds no database yet (missing or empty). A copy
 * is made beside it and renamed into place, so a crash during the copy leaves no half cluster.
 * False when there is no template: PGlite then runs initdb itself.
 */
export async function seedDataDir(dataDir: string): Promise<boolean> {
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) return false;
  const template = await pgliteTemplate();
  if (template === undefined) return false;
  const target = path.resolve(dataDir);
  const aside = `${target}.seeding-${randomBytes(6).toString('hex')}`;
  try {
    await mkdir(path.dirname(target), { recursive: true });
    // The synchronous copy is Node's native one: about 0.05–0.2 s for the template's 39 MB in 971
    // files, where fs/promises' cp (a JavaScript walk, one file at a time) took 0.5–0.8 s, each of
    // the embedded default's seven databases (measured here, 2026-12-02). It runs before the
    // database opens, when its service does not serve yet.
    cpSync(template.dir, aside, { recursive: true });
    if (existsSync(target)) await rmdir(target);
    await rename(aside, target);
    return true;
  } catch {
    await rm(aside, { recursive: true, force: true });
    return false;
  }
}

/** The template as a tar to load an in-memory database from; undefined when there is none. */
export async function templateTar(): Promise<Blob | undefined> {
  const template = await pgliteTemplate();
  if (template === undefined) return undefined;
  tarBytes ??= readFile(template.tar);
  try {
    return new Blob([await tarBytes]);
  } catch {
    tarBytes = undefined;
    return undefined;
  }
}
