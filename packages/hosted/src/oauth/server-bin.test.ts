import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FakeBasecamp, startFakeBasecamp } from '@x/mcp-basecamp/testing';
import { closedPort, type RunningProcess, startHttpBin, startProcess } from '@x/mcp-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, BOB, MALLORY, oauthBinEnv, postToolsList, SECRET, signIn } from './fixture.js';

// The composed server (apps/server, built by `turbo run build`) in `--auth oauth` mode, as a
// process on this Node 22: sign-in, per-user Basecamp providers, refusal of foreign identities.
const bin = fileURLToPath(new URL('../../../../apps/server/dist/bin.js', import.meta.url));

let fake: FakeBasecamp;
let server: RunningProcess & { url: string };
beforeAll(async () => {
  if (!existsSync(bin)) throw new Error(`Build apps/server first (pnpm build): ${bin} is missing.`);
  fake = await startFakeBasecamp();
  server = await startServer('memory:');
});

function serverEnv(home: string, port: number, store: string): Record<string, string> {
  return {
    ...oauthBinEnv({ home, publicUrl: `http://127.0.0.1:${port}`, store, fake }),
    BBJ_RAG_API_URL: 'http://127.0.0.1:9',
  };
}

async function startServer(store: string, port?: number, extraEnv: Record<string, string> = {}) {
  const home = await mkdtemp(join(tmpdir(), 'hosted-bin-'));
  const chosen = port ?? (await closedPort());
  return startHttpBin({
    command: process.execPath,
    args: [bin, '--http', '--port', String(chosen), '--auth', 'oauth', '--providers', 'basecamp,bbj-rag'],
    env: { ...serverEnv(home, chosen, store), ...extraEnv },
  });
}
afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

describe('x-mcp-server --auth oauth', () => {
  it.runIf(process.platform === 'linux' && /^2[23]\./.test(process.versions.node))(
    'runs with AsyncLocalStorage on async context frames (restarted in place, same pid)',
    () => {
      const argv = readFileSync(`/proc/${server.child.pid}/cmdline`, 'utf8').split('\0');
      expect(argv).toContain('--experimental-async-context-frame');
      expect(argv).toContain('--auth');
    },
  );

  it('signs two users in and calls Basecamp with each one’s own token', async () => {
    const env = { url: server.url, fake };
    for (const identity of [ALICE, BOB]) {
      const user = await signIn(env, identity);
      try {
        const names = (await user.client.listTools()).tools.map((tool) => tool.name);
        expect(names).toContain('basecamp_list_projects');
        // /healthz counts what a signed-in user gets, not the shared providers alone.
        const health = (await (await fetch(new URL('/healthz', server.url))).json()) as { tools: number };
        expect(health.tools).toBe(names.length);
        expect(names.some((name) => name.startsWith('bbj_rag_'))).toBe(true);
        expect(names.some((name) => name.startsWith('forge_'))).toBe(false);
        const me = await user.client.callTool({ name: 'hosted_whoami', arguments: {} });
        expect(JSON.parse((me.content as Array<{ text: string }>)[0]?.text ?? '{}')).toEqual({
          user: `basecamp:${identity.id}`,
          name: `${identity.firstName} ${identity.lastName}`,
          email: identity.email,
          basecamp_account: { id: '999999999', name: 'Honcho Design' },
        });
        fake.resetLog();
        const result = await user.client.callTool({ name: 'basecamp_list_projects', arguments: {} });
        expect(result.isError).toBeFalsy();
        const tokens = fake.requests.map(
          (request) => request.headers.authorization?.replace('Bearer ', '') ?? '',
        );
        expect(tokens.length).toBeGreaterThan(0);
        for (const token of tokens) expect(fake.identityOf(token)?.id).toBe(identity.id);
        // The BBj RAG service is down (a closed port): its tools answer unavailable, nothing else does.
        const search = await user.client.callTool({
          name: 'bbj_rag_search_bbj_knowledge',
          arguments: { query: 'READ RECORD' },
        });
        expect(search.isError).toBe(true);
        const searchError = JSON.parse((search.content as Array<{ text: string }>)[0]?.text ?? '{}');
        expect(searchError).toMatchObject({ error_code: 'UPSTREAM_UNAVAILABLE', retryable: true });
      } finally {
        await user.close();
      }
    }
    expect(server.stderr()).not.toContain(SECRET);
  });

  it('a Basecamp token refused before it is due ends the sign-in: no refresh, TOKEN_EXPIRED, then 401', async () => {
    const alice = await signIn({ url: server.url, fake }, ALICE);
    try {
      await alice.client.callTool({ name: 'basecamp_list_projects', arguments: {} });
      // The app was removed at Launchpad (or the password changed): every token is dead.
      fake.expireAccessTokens();
      fake.revokeRefreshTokens(ALICE.id);
      fake.resetLog();
      const result = await alice.client.callTool({ name: 'basecamp_list_projects', arguments: {} });
      expect(result.isError).toBe(true);
      const text = (result.content as Array<{ text: string }>)[0]?.text ?? '';
      expect(JSON.parse(text)).toMatchObject({ error_code: 'TOKEN_EXPIRED' });
      expect(fake.tokenRequests('refresh')).toEqual([]);
      const token = (alice.oauth.tokens() as { access_token: string }).access_token;
      expect((await postToolsList(server.url, token)).status).toBe(401);
      await server.waitForStderr('the sign-in has ended');
    } finally {
      await alice.close();
    }
  });

  it('refuses an identity outside BASECAMP_ALLOWED_ACCOUNTS and logs the accounts it had', async () => {
    await expect(signIn({ url: server.url, fake }, MALLORY)).rejects.toThrow();
    // The operator finds the value BASECAMP_ALLOWED_ACCOUNTS would need in the log.
    const stderr = await server.waitForStderr('sign-in refused: no allowed Basecamp account');
    const line = stderr.split('\n').find((text) => text.includes('sign-in refused: no allowed')) ?? '';
    expect(line).toContain('555555555');
    expect(line).not.toContain(SECRET);
  });

  it('reports the store and the Launchpad refresh breaker on /readyz; BBj RAG unreachable names itself without making it 503', async () => {
    const response = await fetch(new URL('/readyz', server.url));
    const report = (await response.json()) as {
      status: string;
      unavailable: string[];
      providers: Array<{ id: string; ready: boolean; checks: Array<{ name: string; ok: boolean }> }>;
    };
    // BBJ_RAG_API_URL points at a closed port: the service every replica shares is down, so only
    // its tools fail; the replica itself (store, keys) is ready and stays in rotation.
    expect(response.status).toBe(200);
    expect(report.status).toBe('degraded');
    expect(report.unavailable).toEqual(['bbj-rag']);
    expect(report.providers.find((provider) => provider.id === 'bbj-rag')).toMatchObject({
      ready: false,
      readiness: 'reported',
      checks: [expect.objectContaining({ name: 'service', ok: false })],
    });
    await server.waitForStderr('bbj-rag is not available');
    const hosted = report.providers.find((provider) => provider.id === 'hosted');
    expect(hosted?.checks).toEqual([
      expect.objectContaining({ name: 'store', ok: true }),
      expect.objectContaining({ name: 'keys', ok: true }),
      expect.objectContaining({ name: 'launchpad-refresh', ok: true }),
    ]);
    // Basecamp is per user: no process-wide login is checked (or needed) in this mode.
    expect(report.providers.map((provider) => provider.id)).not.toContain('basecamp');
  });

  it('answers 401 with the challenge to a request without a token', async () => {
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain('/.well-known/oauth-protected-resource/mcp');
  });
});

describe('x-mcp-server users', () => {
  it('lists who signed in, revokes and forgets one user, rotates the keys (sqlite store, server stopped)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hosted-store-'));
    const store = `sqlite:${join(dir, 'store.db')}`;
    const port = await closedPort();
    let running = await startServer(store, port);
    const alice = await signIn({ url: running.url, fake }, ALICE);
    await alice.close();
    const token = (alice.oauth.tokens() as { access_token: string }).access_token;
    await running.stop();

    // The admin commands take the server's --store, and it wins over MCP_STORE (here another,
    // empty store) as it does for the server.
    const elsewhere = `sqlite:${join(await mkdtemp(join(tmpdir(), 'hosted-elsewhere-')), 'store.db')}`;
    const adminEnv = { ...serverEnv(dir, port, store), MCP_STORE: elsewhere };
    const run = async (args: string[], env: Record<string, string> = adminEnv) => {
      const child = startProcess({ command: process.execPath, args: [bin, ...args], env });
      return { code: await child.exited, stdout: child.stdout(), stderr: child.stderr() };
    };
    const cli = (...args: string[]) => run(['users', ...args, '--store', store]);
    // MCP_STORE names a store no server has made: an error in one line, and nothing is created.
    const nowhere = await run(['users', 'list']);
    expect(nowhere).toMatchObject({ code: 1, stdout: '' });
    expect(nowhere.stderr).toBe(
      `x-mcp-server users: No store at ${elsewhere.slice('sqlite:'.length)} (nothing was created): give the store the server uses (--store or MCP_STORE).\n`,
    );
    expect(existsSync(elsewhere.slice('sqlite:'.length))).toBe(false);
    const help = await run(['users', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--store <url>');
    expect(help.stdout).toContain('a flag wins over its variable');
    expect(help.stdout).toContain('users forget <user>');
    const keysHelp = await run(['keys', 'rotate', '-h']);
    expect(keysHelp.code).toBe(0);
    expect(keysHelp.stdout).toContain('--store <url>');
    const unknown = await run(['users', 'list', '--stor', store]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--stor'");
    // The flag before the action, and in its `--store=<url>` form, as the server takes it.
    const listed = await run(['users', `--store=${store}`, 'list']);
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout.trim())).toMatchObject({
      user: 'basecamp:101',
      email: 'alice@example.com',
      status: 'active',
      grants: 1,
    });
    const revoked = await cli('revoke', 'basecamp:101');
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout.trim())).toEqual({
      user: 'basecamp:101',
      grants: 1,
      connection: true,
      upstream: true,
      forge: false,
    });
    expect((await cli('frobnicate')).code).toBe(2);
    const forgotten = await cli('forget', 'alice@example.com');
    expect(forgotten.code).toBe(0);
    expect(JSON.parse(forgotten.stdout.trim())).toMatchObject({ user: 'basecamp:101', grants: 0 });
    expect((await cli('list')).stdout.trim()).toBe('');
    expect((await cli('forget', 'alice@example.com')).stderr).toContain('No user alice@example.com');

    // keys rotate with the new secret and the old one as MCP_SECRET_PREVIOUS; afterwards the
    // server starts with the new secret alone.
    const NEW_SECRET = 'a-brand-new-secret-for-the-rotation-0123456789';
    const rotate = startProcess({
      command: process.execPath,
      args: [bin, 'keys', 'rotate', '--store', store],
      env: { ...adminEnv, MCP_SECRET: NEW_SECRET, MCP_SECRET_PREVIOUS: SECRET },
    });
    expect(await rotate.exited).toBe(0);
    expect(JSON.parse(rotate.stdout().trim())).toMatchObject({
      resealed: expect.any(Number),
      unreadable: 0,
      signingKeyRotated: true,
    });
    expect(rotate.stdout()).not.toContain(NEW_SECRET);
    // Going back to the old secret alone is over once keys rotate has run: refused at start,
    // naming the key the store needs.
    const newKeyId = (JSON.parse(rotate.stdout().trim()) as { keyId: string }).keyId;
    const rolledBack = startProcess({
      command: process.execPath,
      args: [
        bin,
        '--http',
        '--port',
        String(port),
        '--auth',
        'oauth',
        '--providers',
        'basecamp',
        '--store',
        store,
      ],
      env: adminEnv,
    });
    expect(await rolledBack.exited).toBe(2);
    expect(rolledBack.stderr()).toContain(newKeyId);
    expect(rolledBack.stderr()).not.toContain(SECRET);

    running = await startServer(store, port, { MCP_SECRET: NEW_SECRET });
    try {
      const response = await postToolsList(running.url, token);
      expect(response.status).toBe(401);
    } finally {
      await running.stop();
    }
  }, 180_000);
});
