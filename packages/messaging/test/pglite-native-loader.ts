import Module from 'node:module';
import path from 'node:path';

interface NodeModuleLoader {
  _load(request: string, parent: unknown, isMain: boolean): unknown;
  _resolveFilename(request: string, parent: unknown): string;
  _nodeModulePaths(from: string): string[];
}

/**
 * PGlite loads Node built-ins with dynamic `import()`, which jest's VM refuses unless node runs
 * with --experimental-vm-modules (the root jest config does not set it). Loading PGlite with
 * Node's own loader, outside the VM, sidesteps that; call this before opening a PGlite database
 * through `@svc/storage`.
 */
export function loadPgliteNatively(): void {
  // Jest hands tests a subclass of Module whose createRequire stays in the sandbox; the static
  // _load and _resolveFilename it copies are Node's own.
  const loader = Module as unknown as NodeModuleLoader;
  const storageDir = path.join(__dirname, '../../storage/src');
  const parent = {
    id: storageDir,
    filename: path.join(storageDir, 'pglite.ts'),
    paths: loader._nodeModulePaths(storageDir),
  };
  const resolved = loader._resolveFilename('@electric-sql/pglite', parent);
  const native = loader._load(resolved, null, false);
  jest.doMock(resolved, () => native);
}
