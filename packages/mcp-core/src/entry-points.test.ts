import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

// Over the built entries, as a user loads them: a bundler may pull a module into a shared chunk
// that the source import graph keeps apart.
const dist = fileURLToPath(new URL('../dist/', import.meta.url));

/**
 * The Node built-in modules that importing `specifier` loads, in a fresh process. The answer goes
 * to a file and the child's stdio to /dev/null: a piped stdio stream would load `net` itself.
 */
async function builtinsLoadedBy(specifier: string): Promise<string[]> {
  const folder = mkdtempSync(join(tmpdir(), 'mcp-core-entries-'));
  const out = join(folder, 'loaded.json');
  const script = `
    const before = new Set(process.moduleLoadList);
    await import(${JSON.stringify(specifier)});
    const loaded = process.moduleLoadList
      .filter((entry) => !before.has(entry) && entry.startsWith('NativeModule ') && !entry.includes('internal/'))
      .map((entry) => entry.slice('NativeModule '.length));
    (await import('node:fs')).writeFileSync(${JSON.stringify(out)}, JSON.stringify(loaded));
  `;
  try {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' });
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    if (code !== 0) throw new Error(`importing ${specifier} failed (exit ${code})`);
    return JSON.parse(readFileSync(out, 'utf8')) as string[];
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

function entry(path: string): string {
  const file = `${dist}${path}`;
  if (!existsSync(file)) throw new Error(`${file} is missing: build @x/mcp-core first (pnpm build).`);
  return pathToFileURL(file).href;
}

const SERVING = ['http', 'https', 'http2', '_http_server', 'net', 'child_process'];

describe('entry points by audience', () => {
  it('sees a built-in module that an import loads (the check itself works)', async () => {
    expect(await builtinsLoadedBy('node:http')).toEqual(
      expect.arrayContaining(['http', '_http_server', 'net']),
    );
  });

  it('the root (tool contract, registry, errors, mount) loads no serving or network module', async () => {
    const loaded = await builtinsLoadedBy(entry('index.js'));
    expect(loaded.filter((name) => SERVING.includes(name))).toEqual([]);
    expect(loaded).not.toContain('fs');
    expect(loaded).not.toContain('crypto');
  });

  it('the node entry leaves node:http unloaded until HTTP serving starts', async () => {
    const loaded = await builtinsLoadedBy(entry('node/index.js'));
    expect(loaded).not.toContain('http');
    expect(loaded).not.toContain('_http_server');
  });
});
