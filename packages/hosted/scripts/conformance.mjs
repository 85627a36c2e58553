#!/usr/bin/env node
// Runs the MCP conformance suite's authorization-server scenarios against the hosted OAuth
// (in process, memory store, the fake Launchpad), driving the browser step with OAuthBrowser.
// Needs Node 22 and `pnpm build`. The suite (pinned; its authorization scenarios are newer than
// the version apps/server/interop runs) is installed by npm into node_modules/.cache on the first
// run, or given as the path of its dist/index.js. `pnpm test:interop` runs this in CI.
//
//   node packages/hosted/scripts/conformance.mjs [<path to the suite's dist/index.js>]
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { connection as basecamp } from '@x/mcp-basecamp/connection';
import { startFakeBasecamp } from '@x/mcp-basecamp/testing';
import { createLogger, ToolRegistry } from '@x/mcp-core';
import { serveHttp } from '@x/mcp-core/node';
import { createHostedAuth, Keyring, MemoryStore } from '@x/mcp-hosted';
import { OAuthBrowser } from '@x/mcp-hosted/testing';

const SUITE = '@modelcontextprotocol/conformance';
const VERSION = '0.2.0-alpha.12';
const CACHE = join(dirname(fileURLToPath(import.meta.url)), '../../../node_modules/.cache/x-interop-auth');

async function installedSuite() {
  const manifest = join(CACHE, 'node_modules', SUITE, 'package.json');
  if (!existsSync(manifest) || JSON.parse(readFileSync(manifest, 'utf8')).version !== VERSION) {
    process.stderr.write(`Installing ${SUITE}@${VERSION} into ${CACHE} ...\n`);
    await mkdir(CACHE, { recursive: true });
    await writeFile(join(CACHE, 'package.json'), '{ "private": true }\n');
    await promisify(execFile)(
      'npm',
      ['install', '--no-audit', '--no-fund', '--loglevel=error', '--no-save', `${SUITE}@${VERSION}`],
      { cwd: CACHE, timeout: 300_000 },
    );
  }
  return join(CACHE, 'node_modules', SUITE, 'dist/index.js');
}

const suite = process.argv[2] ?? (await installedSuite());
const quiet = createLogger('conformance', { level: 'silent' });
const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const fake = await startFakeBasecamp();
const store = new MemoryStore();
const keyring = Keyring.fromSecrets({ secret: 'conformance-run-secret-0123456789abcdef' });
let hosted;
const http = await serveHttp({
  name: 'conformance',
  version: '1.0.0',
  registry: new ToolRegistry({ logger: quiet }),
  port: 0,
  logger: quiet,
  auth: {
    handle: (req, res) => hosted.auth.handle(req, res),
    authenticate: (request) => hosted.auth.authenticate(request),
  },
});
const origin = new URL(http.url).origin;
hosted = await createHostedAuth({
  publicUrl: origin,
  store,
  keyring,
  signIn: {
    connection: basecamp,
    clientId: fake.client.id,
    clientSecret: fake.client.secret,
    url: fake.launchpadUrl,
  },
  allowedAccounts: ['999999999'],
  logger: quiet,
});
const callbackPort = await freePort();
const registered = await fetch(`${origin}/register`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    redirect_uris: [`http://127.0.0.1:${callbackPort}/callback`],
    token_endpoint_auth_method: 'none',
    client_name: 'Conformance suite',
  }),
}).then((response) => response.json());

const child = spawn(
  process.execPath,
  [
    suite,
    'authorization',
    '--url',
    origin,
    '--client-id',
    registered.client_id,
    '--resource',
    `${origin}/mcp`,
    '--port',
    String(callbackPort),
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
let output = '';
let driven = false;
child.stdout.on('data', async (chunk) => {
  output += chunk;
  process.stdout.write(chunk);
  const url = /(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)/.exec(output)?.[1];
  if (url && !driven && output.includes('Callback server started')) {
    driven = true;
    const browser = new OAuthBrowser();
    const page = await browser.open(url).catch((error) => ({ body: '', error }));
    if (page.body.includes('name="decision"')) {
      await browser
        .submit(page, { decision: 'approve' })
        .catch((error) => process.stderr.write(`${error}\n`));
    }
  }
});
const code = await new Promise((resolve) => child.once('exit', resolve));
await http.close();
await fake.close();
await store.close();
process.exit(code ?? 1);
