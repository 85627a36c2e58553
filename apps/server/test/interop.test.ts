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
    fixture: Record<'2025-11-25' | '2026-07-28', { ok: boolean; summary: string }>;
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
  // The core's fixture server (interop/fixture-server.mjs), per protocol revision: what the
  // core implements passes; fixture-expected-failures-<revision>.yml lists the rest, with why.
  expect(result.fixture['2025-11-25'].ok).toBe(true);
  expect(result.fixture['2026-07-28'].ok).toBe(true);
  const passing = (revision: '2025-11-25' | '2026-07-28', scenarios: readonly string[]) => {
    for (const scenario of scenarios) {
      expect(result.fixture[revision].summary).toMatch(
        new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`),
      );
    }
  };
  const common = [
    'completion-complete',
    'tools-list',
    'tools-call-simple-text',
    'tools-call-error',
    'tools-call-with-progress',
    'resources-list',
    'resources-read-text',
    'resources-read-binary',
    'resources-templates-read',
    'prompts-list',
    'prompts-get-simple',
    'prompts-get-with-args',
    'prompts-get-embedded-resource',
    'dns-rebinding-protection',
  ];
  passing('2025-11-25', ['server-initialize', 'ping', ...common]);
  passing('2026-07-28', [
    ...common,
    'sep-2164-resource-not-found',
    'caching',
    'http-header-validation',
    'input-required-result-unsupported-methods',
    'input-required-result-validate-input',
    // A handler's own questions (ToolContext.ask): forms, sampling, roots, several at once,
    // several rounds with a signed requestState, a tampered one refused.
    'input-required-result-basic-elicitation',
    'input-required-result-basic-sampling',
    'input-required-result-basic-list-roots',
    'input-required-result-request-state',
    'input-required-result-multiple-input-requests',
    'input-required-result-multi-round',
    'input-required-result-missing-input-response',
    'input-required-result-ignore-extra-params',
    'input-required-result-result-type',
    'input-required-result-tampered-state',
    'input-required-result-capability-check',
    // The tasks extension (SEP-2663), against the fixture's task tools.
    'tasks-lifecycle',
    'tasks-capability-negotiation',
    'tasks-wire-fields',
    'tasks-request-state-removal',
    'tasks-request-headers',
    'tasks-required-task-error',
    // Tasks that wait for input, and questions asked before the task exists.
    'tasks-mrtr-input',
    'tasks-mrtr-composition',
    'tasks-dispatch-and-envelope',
  ]);
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

// The hosted OAuth (`--auth oauth`, Node 22): the official conformance suite's authorization
// scenarios against our authorization server, and the Inspector CLI signing in with no person at
// the keyboard (packages/hosted/scripts). Both install their pinned tools with npm on first use.
const hostedScript = (name: string) =>
  fileURLToPath(new URL(`../../../packages/hosted/scripts/${name}`, import.meta.url));

async function runOnNode22(script: string): Promise<{ stdout: string; stderr: string }> {
  const { node22 } = await import(new URL('../../../scripts/node22.mjs', import.meta.url).href);
  return run(node22(), [script], { timeout: 290_000, maxBuffer: 16 * 1024 * 1024 }).catch(
    (error: { stdout?: string; stderr?: string }) => {
      throw new Error(`${script} failed:\n${error.stderr ?? ''}\n${error.stdout ?? ''}`);
    },
  );
}

it('passes the conformance suite’s authorization scenarios against the hosted authorization server', async () => {
  const { stdout } = await runOnNode22(hostedScript('conformance.mjs'));
  expect(stdout).toMatch(/✓ authorization-server-metadata-endpoint: [1-9]\d* passed, 0 failed/);
  expect(stdout).toMatch(/✓ authorization-code-grant: [1-9]\d* passed, 0 failed/);
  expect(stdout).toMatch(/Total: [1-9]\d* passed, 0 failed/);
}, 300_000);

it('lets the Inspector CLI sign in through OAuth and list the tools of the hosted server, configured and --sandbox', async () => {
  const { stderr } = await runOnNode22(hostedScript('inspector-oauth.mjs'));
  for (const server of ['configured', 'sandbox']) {
    expect(stderr).toMatch(
      new RegExp(
        `PASS @modelcontextprotocol/inspector@[\\d.]+ --cli signed in through OAuth .* to the ${server} server and listed [1-9]\\d* tools`,
      ),
    );
  }
}, 300_000);
