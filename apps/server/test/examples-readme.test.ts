// docs/examples/README.md, "Using one outside this repository": its package.json and tsconfig.json
// blocks, written into a directory outside the repository with an example next to them, type-check
// with the repository's TypeScript; without `"type": "module"` they do not (the packages are ES
// modules only).
import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const examples = join(root, 'docs/examples');
let dir: string;
let packageJson: Record<string, unknown>;

beforeAll(async () => {
  const readme = await readFile(join(examples, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```json\n([\s\S]*?)```/g)].map(
    (block) => JSON.parse(block[1] as string) as Record<string, unknown>,
  );
  const [pkg, tsconfig] = blocks;
  expect(pkg).toMatchObject({ type: 'module' });
  expect(tsconfig).toMatchObject({ compilerOptions: { types: ['node'] } });
  packageJson = pkg as Record<string, unknown>;
  dir = await mkdtemp(join(tmpdir(), 'examples-outside-'));
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  await copyFile(join(examples, 'define-and-serve.ts'), join(dir, 'define-and-serve.ts'));
  // What `npm install` of the Install: line and the devDependencies would put there.
  await mkdir(join(dir, 'node_modules/@types'), { recursive: true });
  for (const name of ['@x', '@modelcontextprotocol', 'zod']) {
    await symlink(join(examples, 'node_modules', name), join(dir, 'node_modules', name));
  }
  await symlink(join(root, 'node_modules/@types/node'), join(dir, 'node_modules/@types/node'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function typecheck(pkg: Record<string, unknown>) {
  return writeFile(join(dir, 'package.json'), JSON.stringify(pkg)).then(() =>
    spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], {
      encoding: 'utf8',
      timeout: 240_000,
    }),
  );
}

it('the README’s package.json and tsconfig.json type-check an example outside the repository', async () => {
  const run = await typecheck(packageJson);
  expect(run.stdout + run.stderr).toBe('');
  expect(run.status).toBe(0);
}, 300_000);

it('without "type": "module" the same example does not (the packages are ES modules only)', async () => {
  const { type: _type, ...commonjs } = packageJson;
  const run = await typecheck(commonjs);
  expect(run.status).not.toBe(0);
  // A CommonJS file: its top-level await (TS1309) and its imports of ES modules (TS1479) fail.
  expect(run.stdout).toMatch(/TS1309|TS1479/);
}, 300_000);
