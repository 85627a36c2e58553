import { fileURLToPath } from 'node:url';
import { ToolRegistry } from '@x/mcp-core';
import {
  type ConnectedClient,
  connectHttp,
  connectInMemory,
  resultText,
  spawnStdioClient,
  startHttpBin,
} from '@x/mcp-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createForgeProvider } from './index.js';
import { type FakeForge, startFakeForge } from './testing/index.js';

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const BACKEND_ID = 'aec_5f0c2a8e-1b7d-4e55-9a31-0c9e7f1d2b44';

function promptText(result: { messages: { content: unknown }[] }): string {
  const content = result.messages[0]?.content as { type: string; text?: string };
  if (content?.type !== 'text' || content.text === undefined) throw new Error('expected a text message');
  return content.text;
}

async function rpcError(
  call: Promise<unknown>,
): Promise<{ code: number; message: string; data?: { error_code?: string } }> {
  try {
    await call;
  } catch (error) {
    return error as { code: number; message: string };
  }
  throw new Error('expected a JSON-RPC error');
}

let fake: FakeForge;
let connection: ConnectedClient;
beforeAll(async () => {
  fake = await startFakeForge();
  const provider = createForgeProvider({
    apiUrl: fake.url,
    accessToken: fake.accessToken,
    teamId: fake.teamId,
  });
  connection = await connectInMemory(new ToolRegistry().use(provider, { prefix: 'forge_' }));
});
afterAll(async () => {
  await connection.close();
  await fake.close();
});

describe('Forge prompts', () => {
  it('lists the five workflow prompts, prefixed like the tools', async () => {
    const { prompts } = await connection.client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual([
      'forge_list',
      'forge_execute',
      'forge_develop',
      'forge_review',
      'forge_exec',
    ]);
    expect(prompts[0]?.arguments).toEqual([
      { name: 'filter', description: expect.any(String), required: false },
    ]);
    for (const prompt of prompts.slice(1)) {
      expect(prompt.arguments).toEqual([
        { name: 'ticketId', description: expect.stringContaining('FOR-12'), required: true },
      ]);
    }
  });

  it('list renders the tickets as a table with assignee names, not user ids', async () => {
    const text = promptText(await connection.client.getPrompt({ name: 'forge_list', arguments: {} }));
    expect(text).toContain('## Forge tickets of the team (4)');
    expect(text).toContain(
      `| FOR-1 (\`${BACKEND_ID}\`) | Add password reset by email | approved | Dana Developer | high |`,
    );
    expect(text).toContain('| Sam Reviewer |');
    expect(text).not.toContain('uid_someone_else');
    const mine = promptText(
      await connection.client.getPrompt({ name: 'forge_list', arguments: { filter: 'mine' } }),
    );
    expect(mine).toContain('## My Forge tickets (2)');
    const bad = await rpcError(
      connection.client.getPrompt({ name: 'forge_list', arguments: { filter: 'everything' } }),
    );
    expect(bad).toMatchObject({ code: -32602, data: { error_code: 'INVALID_INPUT' } });
  });

  it('execute embeds the ticket exactly as get_ticket_context renders it, after a guide naming the served tools', async () => {
    const result = await connection.client.getPrompt({
      name: 'forge_execute',
      arguments: { ticketId: 'FOR-1' },
    });
    const text = promptText(result);
    const context = resultText(
      await connection.client.callTool({
        name: 'forge_get_ticket_context',
        arguments: { ticketId: 'FOR-1' },
      }),
    );
    expect(text).toContain(`<ticket_context>\n${context}</ticket_context>`);
    expect(text).toContain('- **Assignee:** Dana Developer');
    for (const tool of [
      'forge_start_implementation',
      'forge_report_decision',
      'forge_report_risk',
      'forge_report_scope_change',
      'forge_submit_settlement',
    ]) {
      expect(text).toContain(tool);
    }
    expect(text.indexOf('forge_start_implementation')).toBeLessThan(text.indexOf('forge_submit_settlement'));
    expect(result.description).toBe('Execute a Forge ticket: Add password reset by email');
  });

  it('develop, review and exec each guide their own role', async () => {
    const develop = promptText(
      await connection.client.getPrompt({ name: 'forge_develop', arguments: { ticketId: 'T-001' } }),
    );
    expect(develop).toContain('Do not write production code');
    expect(develop).toContain('forge_start_implementation');
    const review = promptText(
      await connection.client.getPrompt({ name: 'forge_review', arguments: { ticketId: 'T-001' } }),
    );
    expect(review).toContain('forge_submit_review_session');
    expect(review).toContain('# Fix authentication timeout');
    const exec = promptText(
      await connection.client.getPrompt({ name: 'forge_exec', arguments: { ticketId: 'T-001' } }),
    );
    expect(exec.length).toBeLessThan(develop.length);
    expect(exec).toContain('forge_submit_settlement');
  });

  it('answers an unknown ticket and a malformed id with invalid params', async () => {
    const missing = await rpcError(
      connection.client.getPrompt({ name: 'forge_execute', arguments: { ticketId: 'T-999' } }),
    );
    expect(missing).toMatchObject({ code: -32602, data: { error_code: 'NOT_FOUND' } });
    expect(missing.message).toContain('T-999');
    const malformed = await rpcError(
      connection.client.getPrompt({ name: 'forge_review', arguments: { ticketId: '../x' } }),
    );
    expect(malformed).toMatchObject({ code: -32602, data: { error_code: 'INVALID_INPUT' } });
  });

  it('completes ticket ids and slugs from the team tickets', async () => {
    const byslug = await connection.client.complete({
      ref: { type: 'ref/prompt', name: 'forge_execute' },
      argument: { name: 'ticketId', value: 'for-' },
    });
    expect(byslug.completion.values).toEqual(expect.arrayContaining(['FOR-1', 'FOR-2']));
    const byTemplate = await connection.client.complete({
      ref: { type: 'ref/resource', uri: 'forge://tickets/{ticketId}' },
      argument: { name: 'ticketId', value: 'T-0' },
    });
    expect(byTemplate.completion.values).toEqual(['T-001']);
  });

  it('drops the workflow prompts whose tools read-only mode removes, keeping list', () => {
    const provider = createForgeProvider({
      apiUrl: fake.url,
      accessToken: fake.accessToken,
      teamId: fake.teamId,
    });
    const registry = new ToolRegistry().use(provider, { readOnly: true });
    expect(registry.content.listPrompts().map((prompt) => prompt.name)).toEqual(['list']);
    expect(registry.content.listResourceDescriptors().map((resource) => resource.name)).toEqual(['ticket']);
  });
});

describe('Forge ticket resource', () => {
  it('reads forge://tickets/{ticketId} as the Markdown of get_ticket_context', async () => {
    const read = await connection.client.readResource({ uri: 'forge://tickets/FOR-1' });
    const context = resultText(
      await connection.client.callTool({
        name: 'forge_get_ticket_context',
        arguments: { ticketId: 'FOR-1' },
      }),
    );
    expect(read.contents).toEqual([
      { uri: 'forge://tickets/FOR-1', mimeType: 'text/markdown', text: context },
    ]);
  });

  it("lists the team's tickets as resources and answers an unknown ticket with invalid params", async () => {
    const { resources } = await connection.client.listResources();
    expect(resources.map((resource) => resource.uri)).toContain(`forge://tickets/${BACKEND_ID}`);
    expect(resources.find((resource) => resource.uri === `forge://tickets/${BACKEND_ID}`)).toMatchObject({
      name: 'FOR-1: Add password reset by email',
      mimeType: 'text/markdown',
    });
    const missing = await rpcError(connection.client.readResource({ uri: 'forge://tickets/T-999' }));
    expect(missing).toMatchObject({ code: -32602, data: { error_code: 'NOT_FOUND' } });
  });
});

describe('Forge prompts and resources from the built bin', () => {
  it('serves them over stdio with --sandbox', async () => {
    const { client, close } = await spawnStdioClient({ command: process.execPath, args: [bin, '--sandbox'] });
    try {
      const { prompts } = await client.listPrompts();
      expect(prompts.map((prompt) => prompt.name)).toEqual(['list', 'execute', 'develop', 'review', 'exec']);
      const text = promptText(await client.getPrompt({ name: 'review', arguments: { ticketId: 'FOR-2' } }));
      expect(text).toContain('submit_review_session');
      const read = await client.readResource({ uri: 'forge://tickets/FOR-2' });
      expect(read.contents[0]).toMatchObject({
        mimeType: 'text/markdown',
        text: expect.stringContaining('Sam Reviewer'),
      });
    } finally {
      await close();
    }
  });

  it('serves them over HTTP', async () => {
    const server = await startHttpBin({
      command: process.execPath,
      args: [bin, '--sandbox', '--http', '--port', '0'],
    });
    const http = await connectHttp(server.url);
    try {
      const text = promptText(await http.client.getPrompt({ name: 'list', arguments: { filter: 'all' } }));
      expect(text).toContain('Dana Developer');
      const { resourceTemplates } = await http.client.listResourceTemplates();
      expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual([
        'forge://tickets/{ticketId}',
      ]);
    } finally {
      await http.close();
      await server.stop();
    }
  });
});
