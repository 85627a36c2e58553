import { readdir, readFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bin } from './helpers.js';

// The bin is bundled (tsup.config.ts): what it still imports from node_modules, it resolves from
// this package's own dependencies.
const chunks = join(dirname(bin), 'bin');
const root = join(dirname(bin), '..');

async function manifest(path: string): Promise<{ dependencies?: Record<string, string> }> {
  return JSON.parse(await readFile(join(path, 'package.json'), 'utf8'));
}

/** The package names the bundle imports (statically or dynamically), builtins excepted. */
async function externalImports(): Promise<Set<string>> {
  const names = new Set<string>();
  const patterns = [
    /^(?:import|export)\b[^"\n]*"([^"]+)";$/gm,
    /^\} from "([^"]+)";$/gm,
    /\bimport\("([^"]+)"\)/g,
  ];
  for (const file of await readdir(chunks)) {
    if (!file.endsWith('.js')) continue;
    const code = await readFile(join(chunks, file), 'utf8');
    for (const pattern of patterns) {
      for (const [, specifier = ''] of code.matchAll(pattern)) {
        if (specifier.startsWith('.') || isBuiltin(specifier)) continue;
        const parts = specifier.split('/');
        names.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string));
      }
    }
  }
  return names;
}

describe('the bundled bin', () => {
  it('imports only @x/mcp-hosted from node_modules, a dependency of this package', async () => {
    const own = (await manifest(root)).dependencies ?? {};
    // The core, the SDK, zod and the providers with their own dependencies are in the bundle;
    // the hosted server (--auth oauth) is not: building the bin must not need it built.
    expect([...(await externalImports())]).toEqual(['@x/mcp-hosted']);
    expect(own['@x/mcp-hosted']).toBeDefined();
  });
});
