// `make db-types`: writes each service's `src/data-access/db.generated.ts`, the Kysely table types
// of the schema its migrations give (ADR 0017). `--check` (run by `make check`) fails when a
// checked-in file differs from what the migrations give. Needs a build (migrations are read
// through the services' dist) and a PostgreSQL server (TEST_DATABASE_URL, else the local one);
// with no server answering, `--check` prints a notice and passes.
//
// A service takes part when it has `src/data-access/db-types.json`: `{ "overrides": {"table.column":
// "Type"}, "customImports": {"Type": "module"} }` give the domain's types to text and jsonb columns.
// A shared package that owns tables every service has (the Idempotency-Key table) takes part with
// `src/db-types.json` naming its exported migrations (`"migrations": "idempotencyMigrations"`), and
// gets `src/db.generated.ts` with those tables alone.
//
//   node scripts/db-types.mjs [--check] [service… | packages/<name>…]
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const pg = require(path.join(root, 'packages/storage/node_modules/pg'));
const prettier = require(path.join(root, 'node_modules/prettier'));
const { createDatabase, runMigrations } = require(path.join(root, 'packages/storage/dist/index.js'));

const serverUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const check = process.argv.includes('--check');
const named = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));

/** Where the generated types of a service or a shared package go, and where their options are. */
function targetOf(name) {
  if (name.startsWith('packages/')) {
    const dir = path.join(root, name);
    return {
      name,
      dir,
      options: path.join(dir, 'src/db-types.json'),
      out: path.join(dir, 'src/db.generated.ts'),
      relative: `${name}/src/db.generated.ts`,
      optionsRelative: 'src/db-types.json',
    };
  }
  const dir = path.join(root, 'services', name);
  return {
    name,
    service: name,
    dir,
    options: path.join(dir, 'src/data-access/db-types.json'),
    out: path.join(dir, 'src/data-access/db.generated.ts'),
    relative: `services/${name}/src/data-access/db.generated.ts`,
    optionsRelative: 'src/data-access/db-types.json',
  };
}
const everyTarget = () => [
  ...readdirSync(path.join(root, 'services')),
  ...readdirSync(path.join(root, 'packages')).map((name) => `packages/${name}`),
];
const targets = (named.length > 0 ? named : everyTarget())
  .map(targetOf)
  .filter((target) => existsSync(target.options));

/** A shared package's migrations: the exports its db-types.json names (one or a list), from its built index.js. */
function packageMigrationsOf(target, options) {
  const index = path.join(target.dir, 'dist/index.js');
  if (!existsSync(index)) throw new Error(`${index} is missing: run make build first`);
  return [options.migrations].flat().flatMap((name) => {
    const exported = require(index)[name];
    if (exported === undefined) throw new Error(`${index} does not export ${name}`);
    return Array.isArray(exported) ? exported : [exported];
  });
}

/** The service's migrations, from the one exported `*Migrations()` of its built start.js. */
function migrationsOf(service) {
  const start = path.join(root, 'services', service, 'dist/start.js');
  if (!existsSync(start)) throw new Error(`${start} is missing: run make build first`);
  const exports = require(start);
  const factories = Object.entries(exports).filter(
    ([name, value]) => name.endsWith('Migrations') && typeof value === 'function',
  );
  if (factories.length !== 1) throw new Error(`${start} must export exactly one *Migrations() function`);
  return factories[0][1]();
}

async function serverAnswers() {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function withServer(fn) {
  const admin = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5000 });
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.end();
  }
}

/** The generated file's text for `target`, from a temporary database its migrations built. */
async function generate(target) {
  const options = JSON.parse(readFileSync(target.options, 'utf8'));
  const name = `t_dbtypes_${target.name.replace(/[^a-z0-9]/g, '_')}_${randomBytes(4).toString('hex')}`;
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  await withServer((admin) => admin.query(`CREATE DATABASE "${name}"`));
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'db-types-'));
  try {
    const db = await createDatabase({ url: url.toString(), maxConnections: 1 });
    try {
      await runMigrations(
        db,
        target.service === undefined ? packageMigrationsOf(target, options) : migrationsOf(target.service),
      );
    } finally {
      await db.close();
    }
    const outFile = path.join(tmp, 'db.generated.ts');
    const result = spawnSync(
      path.join(root, 'node_modules/.bin/kysely-codegen'),
      [
        '--dialect=postgres',
        `--url=${url.toString()}`,
        '--camel-case',
        `--out-file=${outFile}`,
        '--exclude-pattern=public.schema_migrations',
        // int8 comes back as a number on both engines (packages/storage: pg type parser, PGlite).
        `--type-mapping=${JSON.stringify({ int8: 'number', ...(options.typeMapping ?? {}) })}`,
        `--overrides=${JSON.stringify({ columns: options.overrides ?? {} })}`,
        `--custom-imports=${JSON.stringify(options.customImports ?? {})}`,
        '--log-level=error',
      ],
      { cwd: root, encoding: 'utf8', timeout: 60_000 },
    );
    if (result.status !== 0) throw new Error(`kysely-codegen failed: ${result.stderr || result.stdout}`);
    const header =
      `// Generated by \`make db-types\` from the migrations of ${target.service === undefined ? target.name : `services/${target.service}`} (ADR 0017): do not edit.\n` +
      `// Column types come from the schema; ${target.optionsRelative} names the domain types of some columns.\n`;
    // Services reach Kysely through @svc/storage, which re-exports its types (docs/spec/style.md rule 4).
    const text =
      header +
      readFileSync(outFile, 'utf8')
        .replace(/^\/\*\*[\s\S]*?\*\/\n\n?/, '')
        .replace(/from ["']kysely["'];/g, "from '@svc/storage';");
    const config = await prettier.resolveConfig(path.join(target.dir, 'src/x.ts'));
    return prettier.format(text, { ...config, parser: 'typescript' });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    await withServer((admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  }
}

if (!(await serverAnswers())) {
  const message = `db-types: no PostgreSQL answers at ${serverUrl}; the generated table types were not checked`;
  if (check) {
    console.warn(message);
    process.exit(0);
  }
  console.error(message);
  process.exit(1);
}

let stale = 0;
for (const target of targets) {
  const text = await generate(target);
  const current = existsSync(target.out) ? readFileSync(target.out, 'utf8') : '';
  if (current === text) {
    console.log(`db-types: ${target.relative} up to date`);
  } else if (check) {
    stale++;
    console.error(`db-types: ${target.relative} differs from its migrations; run make db-types`);
  } else {
    writeFileSync(target.out, text);
    console.log(`db-types: wrote ${target.relative}`);
  }
}
process.exit(stale === 0 ? 0 : 1);
