import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { providerProblems, shapeProblems } from '../provider-shape.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TEMPLATE = join(ROOT, 'packages/_template');
const temporary: string[] = [];

/** A copy of the template's shape-relevant files, to break one rule at a time. */
function copyTemplate(): string {
  const dir = mkdtempSync(join(tmpdir(), 'provider-shape-'));
  temporary.push(dir);
  cpSync(join(TEMPLATE, 'package.json'), join(dir, 'package.json'));
  cpSync(join(TEMPLATE, 'src'), join(dir, 'src'), { recursive: true });
  return dir;
}

const edit = (dir: string, path: string, change: (text: string) => string) =>
  writeFileSync(join(dir, path), change(readFileSync(join(dir, path), 'utf8')));

afterEach(() => {
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the provider shape check', () => {
  it('passes every provider of this repository, the template included', () => {
    expect(shapeProblems(ROOT)).toEqual([]);
  });

  it('passes an unchanged copy of the template', () => {
    expect(providerProblems(copyTemplate(), { catalog: '' })).toEqual([]);
  });

  it('fails a bin.ts that does more than call the runner', () => {
    const dir = copyTemplate();
    edit(dir, 'src/bin.ts', (text) =>
      text
        .replace(
          "import { VERSION } from './version.js';",
          "import { VERSION } from './version.js';\nimport './index.js';",
        )
        .concat(
          "\nconsole.log('started');\nconst port = Number(process.env.PORT);\nawait runBin({ name: 'again', version: VERSION, createProvider: async () => ({ id: 'x', version: VERSION, tools: [] }) });\n",
        ),
    );
    const problems = providerProblems(dir, { catalog: '' });
    expect(problems).toContainEqual(expect.stringMatching(/^src\/bin\.ts line 4 imports \.\/index\.js/));
    expect(problems).toContainEqual(
      expect.stringMatching(/^src\/bin\.ts line \d+ runs code besides the runner/),
    );
    expect(problems).toContain('src/bin.ts calls the runner 2 times (once: await runBin({ … }))');
    expect(problems.filter((problem) => problem.includes('runs code besides the runner'))).toHaveLength(2);
  });

  it('fails a bin.ts without the runner', () => {
    const dir = copyTemplate();
    writeFileSync(
      join(dir, 'src/bin.ts'),
      "import { VERSION } from './version.js';\n\nexport { VERSION };\n",
    );
    expect(providerProblems(dir, { catalog: '' })).toEqual([
      'src/bin.ts line 3 runs code besides the runner',
      'src/bin.ts does not import runBin from @x/mcp-core',
      'src/bin.ts calls the runner 0 times (once: await runBin({ … }))',
    ]);
  });

  it('fails a ./testing that is not a pure barrel or has no sandbox, and missing exports', () => {
    const dir = copyTemplate();
    edit(dir, 'src/testing/index.ts', (text) =>
      text.replace("export { createSandbox } from './sandbox.js';", 'export const started = Date.now();'),
    );
    edit(dir, 'src/index.ts', (text) =>
      text
        .replace('export function createTemplateProvider', 'function createTemplateProvider')
        .replace("export { VERSION } from './version.js';", ''),
    );
    edit(dir, 'package.json', (text) => {
      const manifest = JSON.parse(text);
      delete manifest.exports['./testing'];
      return JSON.stringify(manifest);
    });
    expect(providerProblems(dir, { catalog: '' })).toEqual([
      'package.json exports no "./testing"',
      'src/index.ts exports no create…Provider factory',
      'src/index.ts does not export VERSION',
      'src/testing/index.ts is not a pure barrel: line 2 is not a re-export',
      'src/testing/index.ts (./testing) does not export createSandbox',
    ]);
  });

  it('wants a published provider in the catalog, and a private one out of it', () => {
    const dir = copyTemplate();
    const catalog = "sandbox: async () => (await import('@x/mcp-template/testing')).createSandbox(),";
    expect(providerProblems(dir, { catalog })).toEqual([
      'private, but in the catalog (a dependency of apps/server/package.json)',
    ]);
    edit(dir, 'package.json', (text) => JSON.stringify({ ...JSON.parse(text), private: false }));
    expect(providerProblems(dir, { catalog: '' })).toEqual([
      "not in the catalog (add it to apps/server/package.json's dependencies)",
    ]);
    expect(providerProblems(dir, { catalog })).toEqual([]);
  });

  it('finds the providers of a tree by their bin, and names the package in each problem', () => {
    const root = mkdtempSync(join(tmpdir(), 'provider-shape-root-'));
    temporary.push(root);
    mkdirSync(join(root, 'packages'));
    cpSync(copyTemplate(), join(root, 'packages/notes'), { recursive: true });
    mkdirSync(join(root, 'packages/library'));
    writeFileSync(join(root, 'packages/library/package.json'), '{ "name": "@x/library" }');
    rmSync(join(root, 'packages/notes/src/bin.ts'));
    expect(shapeProblems(root)).toEqual(['packages/notes: src/bin.ts is missing']);
  });
});
