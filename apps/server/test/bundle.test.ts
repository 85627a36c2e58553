import { readdir, readFile } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bin } from './helpers.js';

// The bin is bundled (tsup.config.ts): the server, the providers, @x/mcp-hosted, the core, the SDK
// and zod are in dist/bin/, so the code that imports a package from node_modules is this
// package's, and resolves it from here.
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
  it('imports from node_modules only dependencies of this package, at @x/mcp-hosted’s versions', async () => {
    const own = (await manifest(root)).dependencies ?? {};
    const hosted = (await manifest(join(root, '../../packages/hosted'))).dependencies ?? {};
    const imported = [...(await externalImports())].sort();
    // Nothing of the workspace, the SDK or zod (one copy of each, in the bundle, which the hosted
    // code shares with the rest); only the hosted server's own dependencies.
    expect(imported).toEqual(['ioredis', 'jose', 'oidc-provider']);
    for (const name of imported) {
      expect(own[name], `${name} in apps/server/package.json`).toBeDefined();
      expect(own[name], `${name}: the version @x/mcp-hosted declares`).toBe(hosted[name]);
    }
  });
});
