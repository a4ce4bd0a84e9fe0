import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';

// Issue #32: `npm pack` of the SDK gives a package a platform's engineer can install with npm.
// The tarball is made as they would make it (npm, not pnpm, which rewrites the workspace's
// `catalog:` and `workspace:` versions on its own pack) from the built dist, then read: what npm
// would install must be plain versions, every source map must resolve inside the package, and
// the entry points must load with nothing but the declared dependencies beside them.

const SDK = path.resolve(__dirname, '../..');
const ROOT = path.resolve(SDK, '../..');

let work: string;
/** Where npm would put it: the tarball unpacked into an application's node_modules. */
let app: string;
let unpacked: string;
let manifest: {
  main: string;
  types: string;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
};

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'sdk-pack-'));
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
      cwd: SDK,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  ) as { filename: string }[];
  if (packed === undefined) throw new Error('npm pack made no tarball');
  app = path.join(work, 'app');
  unpacked = path.join(app, 'node_modules/@svc/sdk');
  mkdirSync(unpacked, { recursive: true });
  execFileSync('tar', ['-xzf', path.join(work, packed.filename), '-C', unpacked, '--strip-components=1']);
  manifest = JSON.parse(readFileSync(path.join(unpacked, 'package.json'), 'utf8')) as typeof manifest;
}, 60_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(path.join(dir, entry.name)) : [path.join(dir, entry.name)],
  );
}

describe('the SDK packed with npm pack', () => {
  it('when npm reads what to install, then every dependency is a plain version range, the catalog’s own', () => {
    const catalog = (
      parse(readFileSync(path.join(ROOT, 'pnpm-workspace.yaml'), 'utf8')) as {
        catalog: Record<string, string>;
      }
    ).catalog;
    const installed = {
      ...manifest.dependencies,
      ...manifest.peerDependencies,
      ...manifest.optionalDependencies,
    };
    expect(Object.keys(installed).length).toBeGreaterThan(0);
    for (const [name, range] of Object.entries(installed)) {
      expect({ name, range }).toEqual({ name, range: expect.not.stringMatching(/^(catalog|workspace):/) });
      // The same range as the rest of the workspace: the SDK is tested with what it declares.
      expect({ name, range }).toEqual({ name, range: catalog[name] });
    }
  });

  it('when a debugger follows a source map, then every source it names is in the package', () => {
    const maps = filesUnder(path.join(unpacked, 'dist')).filter((file) => file.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(10);
    const missing = maps.flatMap((file) => {
      const map = JSON.parse(readFileSync(file, 'utf8')) as { sources: string[]; sourceRoot?: string };
      return map.sources
        .map((source) => path.resolve(path.dirname(file), map.sourceRoot ?? '', source))
        .filter((source) => !source.startsWith(unpacked) || !existsSync(source))
        .map((source) => `${path.relative(unpacked, file)} -> ${path.relative(unpacked, source)}`);
    });
    expect(missing).toEqual([]);
  });

  it('when installed beside only its declared dependencies, then its entry point and its command load', () => {
    // The declared dependencies, as the workspace installed them for the SDK, and nothing else.
    const modules = path.join(app, 'node_modules');
    for (const name of Object.keys(manifest.dependencies)) {
      mkdirSync(path.dirname(path.join(modules, name)), { recursive: true });
      symlinkSync(realpathSync(path.join(SDK, 'node_modules', name)), path.join(modules, name), 'dir');
    }
    for (const file of [manifest.main, manifest.types, ...Object.values(manifest.bin)])
      expect({ file, exists: existsSync(path.join(unpacked, file)) }).toEqual({ file, exists: true });

    const loaded = execFileSync(
      process.execPath,
      ['-e', "const sdk = require('@svc/sdk'); console.log(typeof sdk.createSvcClient, typeof sdk.paginate)"],
      { cwd: app, encoding: 'utf8' },
    );
    expect(loaded.trim()).toBe('function function');
    const [command] = Object.values(manifest.bin);
    const usage = spawnSync(process.execPath, [path.join(unpacked, command ?? ''), '--help'], {
      cwd: app,
      encoding: 'utf8',
    });
    expect(`${usage.stdout}${usage.stderr}`).toContain('usage: svc-transparency-monitor');
  });
});
