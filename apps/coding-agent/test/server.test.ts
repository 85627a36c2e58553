import { fileURLToPath } from 'node:url';
import { createExampleStore } from '@x/mcp-context-forge/testing';
import { resultData, spawnStdioClient } from '@x/mcp-core/testing';
import { startFakeForge } from '@x/mcp-forge/testing';
import { expect, it } from 'vitest';

it('serves Forge and Context Forge tools mounted on a plain SDK server', async () => {
  const [forge, store] = await Promise.all([startFakeForge(), createExampleStore()]);
  const { client, close } = await spawnStdioClient({
    command: process.execPath,
    args: [fileURLToPath(new URL('../dist/server.js', import.meta.url))],
    env: {
      FORGE_API_URL: forge.url,
      FORGE_ACCESS_TOKEN: forge.accessToken,
      FORGE_TEAM_ID: forge.teamId,
      CONTEXT_FORGE_DATA_DIR: store.dataDir,
    },
  });
  try {
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toHaveLength(20);
    expect(names.filter((name) => name.startsWith('forge_'))).toHaveLength(11);
    expect(names.filter((name) => name.startsWith('cf_'))).toHaveLength(9);
    expect(client.getInstructions()).toContain('list_tickets');
    const ticket = await client.callTool({
      name: 'forge_get_ticket_context',
      arguments: { ticketId: 'FOR-1' },
    });
    expect(ticket.isError).toBeFalsy();
    expect(
      resultData<{ count: number }>(await client.callTool({ name: 'cf_project_list', arguments: {} })).count,
    ).toBe(3);
    // Prompts and resources are mounted along with the tools.
    const prompts = (await client.listPrompts()).prompts.map((prompt) => prompt.name);
    expect(prompts).toEqual(
      expect.arrayContaining(['forge_execute', 'forge_list', 'cf_context', 'cf_template']),
    );
    const context = await client.getPrompt({ name: 'cf_context', arguments: { project: 'harbor-api' } });
    expect(context.messages[0]?.content).toMatchObject({
      text: expect.stringContaining('project: harbor-api'),
    });
    const read = await client.readResource({ uri: 'forge://tickets/FOR-1' });
    expect(read.contents[0]).toMatchObject({ text: expect.stringContaining('Dana Developer') });
  } finally {
    await close();
    await forge.close();
    await store.close();
  }
});
