import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FakeBasecamp, startFakeBasecamp } from '@x/mcp-basecamp/testing';
import { closedPort, type RunningProcess, startHttpBin, startProcess } from '@x/mcp-core/testing';
import { type FakeForge, startFakeForge } from '@x/mcp-forge/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, BOB, linkForge, oauthBinEnv, signIn } from './fixture.js';

// The composed server (apps/server, built) in `--auth oauth` mode with Forge: each user links
// their own Forge account at /connect/forge in the browser they signed in with; a user without a
// link gets AUTH_REQUIRED with that address; `users revoke` removes the link. Context Forge (the
// server's files) is served only when the config marks it shared; BBj RAG to everyone.
const bin = fileURLToPath(new URL('../../../../apps/server/dist/bin.js', import.meta.url));

let fake: FakeBasecamp;
let forge: FakeForge;
let home: string;
beforeAll(async () => {
  if (!existsSync(bin)) throw new Error(`Build apps/server first (pnpm build): ${bin} is missing.`);
  fake = await startFakeBasecamp();
  forge = await startFakeForge();
  home = await mkdtemp(join(tmpdir(), 'hosted-forge-'));
});
afterAll(async () => {
  await fake?.close();
  await forge?.close();
});

function serverEnv(port: number, store: string): Record<string, string> {
  return {
    ...oauthBinEnv({ home, publicUrl: `http://127.0.0.1:${port}`, store, fake }),
    BBJ_RAG_API_URL: 'http://127.0.0.1:9',
    FORGE_API_URL: forge.url,
  };
}

function startServer(port: number, store: string, extra: string[] = []) {
  return startHttpBin({
    command: process.execPath,
    args: [bin, '--http', '--port', String(port), '--auth', 'oauth', ...extra],
    env: serverEnv(port, store),
  });
}

const body = (result: unknown) =>
  JSON.parse(((result as { content: Array<{ text: string }> }).content[0] as { text: string }).text);

describe('x-mcp-server --auth oauth with Forge', () => {
  it('serves each user their own Forge link, AUTH_REQUIRED without one, and users revoke removes it', async () => {
    const store = `sqlite:${join(await mkdtemp(join(tmpdir(), 'hosted-forge-store-')), 'store.db')}`;
    const port = await closedPort();
    const origin = `http://127.0.0.1:${port}`;
    const connectUrl = `${origin}/connect/forge`;
    let server: RunningProcess & { url: string } = await startServer(port, store, [
      '--providers',
      'basecamp,forge,bbj-rag,context-forge',
    ]);
    try {
      const alice = await signIn({ url: server.url, fake }, ALICE);
      const bob = await signIn({ url: server.url, fake }, BOB);
      try {
        const names = (await alice.client.listTools()).tools.map((tool) => tool.name);
        expect(names).toContain('forge_list_tickets');
        expect(names).not.toContain('forge_get_repository_context');
        expect(names.some((name) => name.startsWith('bbj_rag_'))).toBe(true);
        expect(names.some((name) => name.startsWith('context_forge_'))).toBe(false);
        expect(server.stderr()).toContain('does not serve context-forge');

        // Before linking: AUTH_REQUIRED with the address to follow.
        const before = body(await alice.client.callTool({ name: 'forge_list_tickets', arguments: {} }));
        expect(before).toMatchObject({ error_code: 'AUTH_REQUIRED', connect_url: connectUrl });

        await linkForge(alice, origin);
        forge.requests.length = 0;
        const tickets = await alice.client.callTool({ name: 'forge_list_tickets', arguments: {} });
        expect(tickets.isError).toBeFalsy();
        const used = forge.requests.filter((request) => request.path.startsWith('/tickets'));
        expect(used.length).toBeGreaterThan(0);
        for (const request of used) expect(request.headers.authorization).toBe(`Bearer ${forge.accessToken}`);
        expect(body(await alice.client.callTool({ name: 'hosted_whoami', arguments: {} })).forge).toEqual({
          linked: true,
          email: expect.any(String),
          team: forge.teamId,
        });

        // Bob has no link: his Forge tools refuse and say where to link; Forge never sees a call for him.
        forge.requests.length = 0;
        const refused = await bob.client.callTool({ name: 'forge_list_tickets', arguments: {} });
        expect(refused.isError).toBe(true);
        const error = body(refused);
        expect(error).toMatchObject({
          error_code: 'AUTH_REQUIRED',
          retryable: false,
          connect_url: connectUrl,
        });
        expect(error.message).toContain(connectUrl);
        expect(forge.requests).toEqual([]);
        expect(body(await bob.client.callTool({ name: 'hosted_whoami', arguments: {} })).forge).toEqual({
          linked: false,
          connect_url: connectUrl,
        });
      } finally {
        await alice.close();
        await bob.close();
      }
      expect(server.stderr()).not.toContain(forge.accessToken);
      expect(server.stderr()).not.toContain(forge.refreshToken);
      await server.stop();

      const revoke = startProcess({
        command: process.execPath,
        args: [bin, 'users', 'revoke', 'basecamp:101'],
        env: serverEnv(port, store),
      });
      expect(await revoke.exited).toBe(0);
      expect(JSON.parse(revoke.stdout().trim())).toMatchObject({ user: 'basecamp:101', forge: true });

      server = await startServer(port, store, ['--providers', 'basecamp,forge']);
      const again = await signIn({ url: server.url, fake }, ALICE);
      try {
        const after = body(await again.client.callTool({ name: 'forge_list_tickets', arguments: {} }));
        expect(after).toMatchObject({ error_code: 'AUTH_REQUIRED', connect_url: connectUrl });
      } finally {
        await again.close();
      }
    } finally {
      await server.stop();
    }
  }, 90_000);

  it('serves Context Forge to every signed-in user when the config marks it shared', async () => {
    const config = join(home, 'shared.json');
    await writeFile(
      config,
      JSON.stringify({
        providers: {
          basecamp: {},
          'context-forge': { shared: true, settings: { dataDir: join(home, 'cf') } },
        },
      }),
    );
    const port = await closedPort();
    const server = await startServer(port, 'memory:', ['--config', config]);
    try {
      const alice = await signIn({ url: server.url, fake }, ALICE);
      try {
        const names = (await alice.client.listTools()).tools.map((tool) => tool.name);
        expect(names.some((name) => name.startsWith('context_forge_'))).toBe(true);
        const listed = await alice.client.callTool({ name: 'context_forge_project_list', arguments: {} });
        expect(listed.isError).toBeFalsy();
      } finally {
        await alice.close();
      }
    } finally {
      await server.stop();
    }
  });
});
