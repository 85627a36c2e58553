import { readFile } from 'node:fs/promises';
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

/**
 * The package names the bundle imports (statically or dynamically), builtins excepted: the files
 * reachable from dist/bin/main.js through relative imports, not every file in the directory (a
 * build restored from turbo's cache leaves an earlier build's chunks beside the current ones).
 */
async function externalImports(): Promise<Set<string>> {
  const names = new Set<string>();
  const patterns = [
    /^(?:import|export)\b[^"\n]*"([^"]+)";$/gm,
    /^\} from "([^"]+)";$/gm,
    /\bimport\("([^"]+)"\)/g,
  ];
  const seen = new Set<string>();
  const pending = [join(chunks, 'main.js')];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const code = await readFile(file, 'utf8');
    for (const pattern of patterns) {
      for (const [, specifier = ''] of code.matchAll(pattern)) {
        if (specifier.startsWith('.')) {
          pending.push(join(dirname(file), specifier));
          continue;
        }
        if (isBuiltin(specifier)) continue;
        const parts = specifier.split('/');
        names.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string));
      }
    }
  }
  // The walk must have found the chunks: a pattern that stopped matching esbuild's output would
  // otherwise pass with an empty set.
  expect(seen.size).toBeGreaterThan(3);
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
