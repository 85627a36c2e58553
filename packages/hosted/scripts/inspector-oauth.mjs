#!/usr/bin/env node
// Interop: the MCP Inspector CLI (pinned, the version apps/server/interop uses) signs in to the
// composed server in `--auth oauth` mode and lists its tools, with no person at the keyboard:
// DCR → /authorize → our consent page → the fake Launchpad → the Inspector's loopback callback
// (with `iss`) → token → tools/list. The Inspector opens the authorization URL through
// `$BROWSER` (MCP_AUTO_OPEN_ENABLED=true admits the flow without a TTY); our BROWSER is the
// headless OAuthBrowser of @x/mcp-hosted/testing, which approves the consent page and, on the
// fake Launchpad's sign-in page, picks the first sample person. Two servers, one after the other:
// - `configured`: a deployment's configuration (MCP_PUBLIC_URL, MCP_SECRET, a Launchpad app: the
//   fake's) with a person already signed in at the fake Launchpad;
// - `sandbox`: `x-mcp-server --http --auth oauth --sandbox`, the first step of docs/deployment.md,
//   with nothing configured.
// Needs the network once (npm install into node_modules/.cache/x-interop) and `pnpm build`.
//
//   node packages/hosted/scripts/inspector-oauth.mjs
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { node22 } from '../../../scripts/node22.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const CACHE = join(ROOT, 'node_modules/.cache/x-interop');
const INSPECTOR = '@modelcontextprotocol/inspector';
const VERSION = '2.12.0';
const SECRET = 'an-interop-secret-of-at-least-32-bytes-0123456789';
const node = node22();

const manifest = join(CACHE, 'node_modules', INSPECTOR, 'package.json');
if (!existsSync(manifest) || JSON.parse(readFileSync(manifest, 'utf8')).version !== VERSION) {
  process.stderr.write(`Installing ${INSPECTOR}@${VERSION} into ${CACHE} ...\n`);
  await mkdir(CACHE, { recursive: true });
  if (!existsSync(join(CACHE, 'package.json')))
    await writeFile(join(CACHE, 'package.json'), '{ "private": true }\n');
  await promisify(execFile)(
    'npm',
    ['install', '--no-audit', '--no-fund', '--loglevel=error', '--no-save', `${INSPECTOR}@${VERSION}`],
    {
      cwd: CACHE,
      timeout: 300_000,
    },
  );
}

const { startFakeBasecamp, SANDBOX_PEOPLE } = await import(
  pathToFileURL(join(ROOT, 'packages/basecamp/dist/testing/index.js')).href
);
const { closedPort } = await import(
  pathToFileURL(join(ROOT, 'packages/mcp-core/dist/testing/index.js')).href
);
const work = await mkdtemp(join(tmpdir(), 'inspector-oauth-'));

// The browser: follows redirects with a cookie jar, approves the consent page, picks a person on
// the fake Launchpad's page when it shows one.
await writeFile(
  join(work, 'browser.mjs'),
  `import { appendFileSync } from 'node:fs';
import { OAuthBrowser } from ${JSON.stringify(pathToFileURL(join(ROOT, 'packages/hosted/dist/testing/index.js')).href)};
const browser = new OAuthBrowser();
let page = await browser.open(process.argv[2]);
if (page.status === 200 && page.body.includes('name="decision"')) page = await browser.submit(page, { decision: 'approve' });
if (page.status === 200 && page.body.includes('name="person"')) page = await browser.submit(page, { person: ${JSON.stringify(String(SANDBOX_PEOPLE[0].identity.id))} });
appendFileSync(${JSON.stringify(join(work, 'browser.log'))}, page.url.href + '\\n');
`,
);
await writeFile(
  join(work, 'browser.sh'),
  `#!/bin/sh\nexec ${JSON.stringify(node)} ${JSON.stringify(join(work, 'browser.mjs'))} "$1"\n`,
);
await chmod(join(work, 'browser.sh'), 0o755);

/** Starts the server with `args`, runs the Inspector CLI against it; the problems found, if any. */
async function signInWithInspector(name, args, env) {
  const home = join(work, name);
  await mkdir(home, { recursive: true });
  await rm(join(work, 'browser.log'), { force: true });
  const port = await closedPort();
  const server = spawn(
    node,
    [join(ROOT, 'apps/server/dist/bin.js'), '--http', '--port', String(port), ...args],
    {
      env: { PATH: process.env.PATH, HOME: home, MCP_LOG_LEVEL: 'info', ...env(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let serverLog = '';
  server.stderr.on('data', (chunk) => {
    serverLog += chunk;
  });
  for (let waited = 0; !serverLog.includes('listening on') && waited < 20_000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  const inspector = spawn(
    node,
    [
      join(CACHE, 'node_modules', INSPECTOR, 'clients/launcher/build/index.js'),
      '--cli',
      `http://127.0.0.1:${port}/mcp`,
      '--transport',
      'http',
      '--method',
      'tools/list',
    ],
    {
      env: {
        ...process.env,
        HOME: home,
        MCP_AUTO_OPEN_ENABLED: 'true',
        BROWSER: join(work, 'browser.sh'),
        MCP_INSPECTOR_SECRET_STORE: 'memory',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  inspector.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  inspector.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const timer = setTimeout(() => inspector.kill(), 90_000);
  const code = await new Promise((resolve) => inspector.once('exit', resolve));
  clearTimeout(timer);
  server.kill();

  const failures = [];
  let tools = [];
  try {
    tools = JSON.parse(stdout).tools.map((tool) => tool.name);
  } catch {
    failures.push('tools/list printed no JSON');
  }
  const landed = existsSync(join(work, 'browser.log'))
    ? (await readFile(join(work, 'browser.log'), 'utf8')).trim()
    : '';
  if (code !== 0) failures.push(`the Inspector exited with ${code}`);
  if (!tools.includes('basecamp_list_projects')) failures.push('basecamp_list_projects is not listed');
  if (
    !landed.startsWith('http://127.0.0.1:6276/oauth/callback?') ||
    !new URL(landed).searchParams.get('iss')
  ) {
    failures.push(`the browser did not reach the Inspector's callback with iss (${landed || 'nowhere'})`);
  }
  if (serverLog.includes(SECRET)) failures.push('the server logged MCP_SECRET');
  return { name, failures, tools, log: `${stderr.slice(-2000)}\n${serverLog.slice(-2000)}` };
}

const fake = await startFakeBasecamp();
fake.signInAs({
  id: 101,
  firstName: 'Alice',
  lastName: 'Arnold',
  email: 'alice@example.com',
  accounts: [{ id: 999999999, name: 'Honcho Design' }],
});
const results = [];
results.push(
  await signInWithInspector('configured', ['--auth', 'oauth', '--providers', 'basecamp'], (port) => ({
    MCP_PUBLIC_URL: `http://127.0.0.1:${port}`,
    MCP_SECRET: SECRET,
    MCP_STORE: 'memory:',
    BASECAMP_CLIENT_ID: fake.client.id,
    BASECAMP_CLIENT_SECRET: fake.client.secret,
    BASECAMP_LAUNCHPAD_URL: fake.launchpadUrl,
    BASECAMP_API_URL: fake.url,
    BASECAMP_ALLOWED_ACCOUNTS: '999999999',
    BASECAMP_CONTACT: 'interop@example.com',
  })),
);
await fake.close();
results.push(await signInWithInspector('sandbox', ['--auth', 'oauth', '--sandbox'], () => ({})));
await rm(work, { recursive: true, force: true });

let failed = false;
for (const { name, failures, tools, log } of results) {
  if (failures.length > 0) {
    failed = true;
    process.stderr.write(`FAIL inspector OAuth sign-in (${name}):\n- ${failures.join('\n- ')}\n${log}\n`);
  } else {
    process.stderr.write(
      `PASS ${INSPECTOR}@${VERSION} --cli signed in through OAuth (DCR, consent, Launchpad, iss) to the ${name} server and listed ${tools.length} tools\n`,
    );
  }
}
process.exit(failed ? 1 : 0);
