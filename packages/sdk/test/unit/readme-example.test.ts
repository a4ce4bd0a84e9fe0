import { readFileSync } from 'node:fs';
import path from 'node:path';

// README.md's TypeScript walk-through is type-checked (`make check`) as test/readme-example.ts:
// the two must say the same, line for line; the example only wraps it in a function and imports
// from ../src instead of @svc/sdk.
describe("the SDK README's example", () => {
  it('when README.md is read, then its TypeScript walk-through is the type-checked example', () => {
    const root = path.resolve(__dirname, '../..');
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const block = /## The walk-through, in TypeScript[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const lines = block.replace(/\n$/, '').split('\n');
    const example = readFileSync(path.join(root, 'test/readme-example.ts'), 'utf8');
    const [head = '', body = ''] = example.split('// --- README ---\n');

    const imports = lines.filter((line) => line.startsWith('import '));
    expect(imports.length).toBeGreaterThan(0);
    for (const line of imports) expect(head).toContain(line.replace("'@svc/sdk'", "'../src'"));
    const code = lines.filter((line) => !line.startsWith('import '));
    expect(body.split('\n').slice(1).join('\n')).toBe(`${code.join('\n')}\n`);
  });
});
