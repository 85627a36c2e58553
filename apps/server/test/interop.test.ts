import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);

// The official conformance suite against the composed server over HTTP, and the MCP Inspector
// CLI against every bin over stdio: see interop/run.mjs. The first run installs the pinned tools
// with npm (about 25 s); later runs reuse them.
it('passes the MCP conformance suite (bar the capabilities we do not offer) and the Inspector CLI on every bin', async () => {
  const script = fileURLToPath(new URL('../interop/run.mjs', import.meta.url));
  const { stdout } = await run(process.execPath, [script], {
    timeout: 290_000,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: { stdout?: string; stderr?: string }) => {
    throw new Error(`interop checks failed:\n${error.stderr ?? ''}\n${error.stdout ?? ''}`);
  });
  const result = JSON.parse(stdout) as {
    ok: boolean;
    conformance: { ok: boolean; summary: string };
    inspector: { bin: string; tools: number; ok: boolean }[];
    inspectorHttp: { ok: boolean; tools?: number };
  };
  expect(result.conformance.ok).toBe(true);
  for (const scenario of [
    'server-initialize',
    'ping',
    'tools-list',
    'prompts-list',
    'resources-list',
    'dns-rebinding-protection',
  ]) {
    expect(result.conformance.summary).toMatch(new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`));
  }
  expect(result.inspector.map((item) => [item.bin, item.ok])).toEqual([
    ['packages/basecamp/dist/bin.js', true],
    ['packages/forge/dist/bin.js', true],
    ['packages/context-forge/dist/bin.js', true],
    ['packages/bbj-rag/dist/bin.js', true],
    ['apps/server/dist/bin.js', true],
  ]);
  // The documented `--header "Authorization: Bearer …"` form against a server with a token.
  expect(result.inspectorHttp).toEqual({ ok: true, tools: 47 });
}, 300_000);
