import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FakeBasecamp, startFakeBasecamp } from '@x/mcp-basecamp/testing';
import { closedPort, errorBody, type RunningProcess, startHttpBin } from '@x/mcp-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, oauthBinEnv, postToolsList, signIn } from './fixture.js';

// The built composed server in `--auth oauth` mode, connected to through narrowed URLs.
const bin = fileURLToPath(new URL('../../../../apps/server/dist/bin.js', import.meta.url));

let fake: FakeBasecamp;
let server: RunningProcess & { url: string };
let origin: string;
beforeAll(async () => {
  if (!existsSync(bin)) throw new Error(`Build apps/server first (pnpm build): ${bin} is missing.`);
  fake = await startFakeBasecamp();
  const home = await mkdtemp(join(tmpdir(), 'hosted-narrowing-bin-'));
  const port = await closedPort();
  server = await startHttpBin({
    command: process.execPath,
    args: [bin, '--http', '--port', String(port), '--auth', 'oauth', '--providers', 'basecamp,bbj-rag'],
    env: {
      ...oauthBinEnv({ home, publicUrl: `http://127.0.0.1:${port}`, store: 'memory:', fake }),
      BBJ_RAG_API_URL: 'http://127.0.0.1:9',
    },
  });
  origin = new URL(server.url).origin;
});
afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

describe('x-mcp-server --auth oauth, narrowed connector URLs', () => {
  it('signs in through /mcp/x/basecamp.todos/readonly and serves only that; the token serves the other URLs', async () => {
    const url = `${origin}/mcp/x/basecamp.todos/readonly`;
    const alice = await signIn({ url, fake }, ALICE);
    try {
      const tools = (await alice.client.listTools()).tools;
      expect(tools.length).toBeGreaterThan(0);
      expect(tools.every((tool) => tool.name.startsWith('basecamp_') && tool.annotations?.readOnlyHint)).toBe(
        true,
      );
      const refused = await alice.client.callTool({ name: 'hosted_whoami', arguments: {} });
      expect(errorBody(refused)).toMatchObject({ error_code: 'PERMISSION_DENIED', rule: 'toolsets' });
      const token = (alice.oauth.tokens() as { access_token: string }).access_token;
      expect((await postToolsList(`${origin}/mcp`, token)).status).toBe(200);
      expect((await postToolsList(`${origin}/mcp/x/hosted`, token)).status).toBe(200);
      const unknown = await postToolsList(`${origin}/mcp/x/jira`, token);
      expect(unknown.status).toBe(400);
      const body = (await unknown.json()) as { error: { data: { valid_toolsets: string[] } } };
      expect(body.error.data.valid_toolsets).toEqual(
        expect.arrayContaining(['basecamp', 'basecamp.todos', 'bbj-rag', 'hosted']),
      );
    } finally {
      await alice.close();
    }
  });
});
