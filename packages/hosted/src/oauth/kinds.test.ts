import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { metadata as basecamp } from '@x/mcp-basecamp/metadata';
import { metadata as forge } from '@x/mcp-forge/metadata';
import { describe, expect, it } from 'vitest';

// Issue #26: the hosted layer implements the kinds of connection, not the providers. A provider
// joins hosted mode by declaring its connection; nothing here or in apps/server's hosted.ts
// names it. The policy's keys are generic; their older provider-named aliases are derived from
// the sign-in provider's id (decision 0028).
const src = fileURLToPath(new URL('..', import.meta.url));
const root = join(src, '..', '..', '..');

/**
 * Modules only tests import, which may use the providers' fakes (devDependencies), each with its
 * reason. Not under src/testing/: that is the published `@x/mcp-hosted/testing` entry, checked
 * like the rest.
 */
const TEST_ONLY = new Map([
  ['oauth/fixture.ts', "the hosted suite's fixture: a fake Basecamp and Launchpad, the built server"],
]);

/** Every `.ts` file under `dir`, tests included. */
async function allFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await allFiles(path)));
    else if (entry.name.endsWith('.ts')) files.push(path);
  }
  return files;
}

/** The non-test sources: what the package builds and publishes. */
async function sources(dir: string): Promise<string[]> {
  return (await allFiles(dir)).filter(
    (file) => !file.endsWith('.test.ts') && !TEST_ONLY.has(relative(dir, file)),
  );
}

const names = () => new RegExp(`\\b(${[basecamp.id, forge.id, 'launchpad'].join('|')})\\b`, 'i');

describe('the hosted layer knows kinds, not providers', () => {
  it('depends on no provider package (only on @x/mcp-core among ours)', async () => {
    const pkg = JSON.parse(await readFile(join(src, '..', 'package.json'), 'utf8')) as Record<
      string,
      Record<string, string> | undefined
    >;
    const runtime = { ...pkg.dependencies, ...pkg.peerDependencies, ...pkg.optionalDependencies };
    expect(Object.keys(runtime).filter((name) => name.startsWith('@x/'))).toEqual(['@x/mcp-core']);
  });

  it('imports no provider package and names no provider outside its tests', async () => {
    const found: string[] = [];
    for (const file of await sources(src)) {
      const text = await readFile(file, 'utf8');
      const where = relative(src, file);
      if (/from '@x\/mcp-(?!core)/.test(text)) found.push(`${where}: imports a provider`);
      if (names().test(text)) {
        found.push(`${where}: ${names().exec(text)?.[0]}`);
      }
    }
    expect(found).toEqual([]);
  });

  it('the test-only modules are imported by tests only', async () => {
    const importers: string[] = [];
    for (const file of await sources(src)) {
      const text = await readFile(file, 'utf8');
      for (const module of TEST_ONLY.keys()) {
        const name = module.split('/').at(-1)?.replace(/\.ts$/, '.js') ?? '';
        if (text.includes(`/${name}'`)) importers.push(`${relative(src, file)} imports ${module}`);
      }
    }
    expect(importers).toEqual([]);
  });

  it('apps/server/src/hosted.ts imports no provider and keys nothing by a provider id', async () => {
    const text = await readFile(join(root, 'apps', 'server', 'src', 'hosted.ts'), 'utf8');
    expect(text).not.toMatch(/from '@x\/mcp-(?!core|hosted)/);
    for (const id of [basecamp.id, forge.id]) {
      expect(text).not.toMatch(new RegExp(`['"\`.]${id}['"\`]`));
      expect(text).not.toMatch(new RegExp(`\\b${id}:`));
    }
    expect(text).not.toMatch(/launchpad/i);
  });
});
