import { fileURLToPath } from 'node:url';
import { errorBody, resultData, spawnStdioClient } from '@x/mcp-core/testing';
import { startFakeForge } from '@x/mcp-forge/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The documentation's code samples (docs/examples/, synced into the Markdown) run as written:
// each is started the way a client starts a server and answers a real MCP client.
const examples = fileURLToPath(new URL('../../../docs/examples/', import.meta.url));
const run = (file: string, env: Record<string, string> = {}) =>
  spawnStdioClient({ command: process.execPath, args: ['--import', 'tsx', file], cwd: examples, env });

describe('docs/examples', () => {
  let forge: Awaited<ReturnType<typeof startFakeForge>>;
  beforeAll(async () => {
    forge = await startFakeForge();
  });
  afterAll(async () => {
    await forge.close();
  });
  const forgeEnv = () => ({
    FORGE_API_URL: forge.url,
    FORGE_ACCESS_TOKEN: forge.accessToken,
    FORGE_TEAM_ID: forge.teamId,
  });

  it.each(['mount-sdk-v2.ts', 'mount-sdk-v1.ts'])(
    '%s serves the Forge tools on an SDK server',
    async (file) => {
      const { client, close } = await run(file, forgeEnv());
      try {
        const names = (await client.listTools()).tools.map((tool) => tool.name);
        expect(names).toContain('forge_list_tickets');
        const listed = await client.callTool({ name: 'forge_list_tickets', arguments: {} });
        expect(listed.isError).toBeFalsy();
      } finally {
        await close();
      }
    },
  );

  it('define-and-serve.ts serves its own tools through the runner, naming tools with toolRef', async () => {
    const { client, close } = await run('define-and-serve.ts');
    try {
      expect(resultData(await client.callTool({ name: 'get_note', arguments: { id: 'n1' } }))).toEqual({
        id: 'n1',
        text: 'Buy milk',
      });
      const missing = errorBody(await client.callTool({ name: 'get_note', arguments: { id: 'n9' } }));
      expect(missing.message).toBe('Note not found: n9. Use list_notes to see the ids.');
    } finally {
      await close();
    }
  });
});
