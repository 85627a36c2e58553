import { spawnSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorBody, resultData, runProcess, spawnStdioClient } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { PROVIDER_IDS, PROVIDERS } from '../src/catalog.js';
import { bin, defaultToolNames } from './helpers.js';

async function toolNames(args: string[], env: Record<string, string> = {}): Promise<string[]> {
  const { client, close } = await spawnStdioClient({ command: process.execPath, args: [bin, ...args], env });
  try {
    return (await client.listTools()).tools.map((tool) => tool.name);
  } finally {
    await close();
  }
}

async function configFile(config: unknown): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'server-compose-')), 'server.json');
  await writeFile(file, JSON.stringify(config));
  return file;
}

const run = (args: string[]) =>
  spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 20_000, input: '' });

describe('composition', () => {
  it('serves every provider by default, each under the prefix its metadata declares', async () => {
    const names = await toolNames(['--sandbox']);
    expect([...names].sort()).toEqual((await defaultToolNames()).sort());
    for (const provider of PROVIDERS) {
      expect(names.some((name) => name.startsWith(provider.prefix))).toBe(true);
    }
  });

  it('takes providers, prefixes, filters and read-only from the config; flags narrow it further', async () => {
    const config = await configFile({
      providers: {
        forge: { prefix: 'ticket_', include: ['get_*', 'list_tickets', 'update_ticket_status'] },
        'context-forge': { prefix: false, readOnly: true, exclude: ['template_preview'] },
      },
    });
    const names = await toolNames(['--sandbox', '--config', config]);
    // In the catalog's order (package.json's): Context Forge before Forge.
    expect(names).toEqual([
      'project_list',
      'project_get',
      'context_build',
      'prompt_list',
      'prompt_get',
      'ticket_list_tickets',
      'ticket_get_ticket_context',
      'ticket_get_file_changes',
      'ticket_get_repository_context',
      'ticket_update_ticket_status',
    ]);
    const narrowed = await toolNames([
      '--sandbox',
      '--config',
      config,
      '--read-only',
      '--exclude',
      'ticket_get_*',
    ]);
    expect(narrowed).toEqual([
      'project_list',
      'project_get',
      'context_build',
      'prompt_list',
      'prompt_get',
      'ticket_list_tickets',
    ]);
  });

  it('takes Basecamp toolsets from the config, on the sandbox too', async () => {
    const config = await configFile({ providers: { basecamp: { settings: { toolsets: ['chat'] } } } });
    expect(await toolNames(['--sandbox', '--config', config])).toEqual([
      'basecamp_list_campfire_lines',
      'basecamp_post_campfire_line',
      'basecamp_list_chats',
      'basecamp_delete_campfire_line',
      'basecamp_get_chat_line',
      'basecamp_list_chat_uploads',
      'basecamp_upload_chat_file',
    ]);
    const unknown = run([
      '--sandbox',
      '--config',
      await configFile({ providers: { basecamp: { settings: { toolsets: ['kanban'] } } } }),
    ]);
    expect(unknown.status).not.toBe(0);
    expect(unknown.stderr).toContain('Unknown Basecamp toolset "kanban"');
  });

  it('adds Basecamp toolsets at run time with dynamicToolsets in the config, under the prefix', async () => {
    const config = await configFile({
      providers: { forge: {}, basecamp: { settings: { dynamicToolsets: true } } },
    });
    const { client, close } = await spawnStdioClient({
      command: process.execPath,
      args: [bin, '--sandbox', '--config', config],
    });
    try {
      let changes = 0;
      client.setNotificationHandler('notifications/tools/list_changed', () => {
        changes++;
      });
      const before = (await client.listTools()).tools.map((tool) => tool.name);
      expect(before).toContain('basecamp_enable_toolset');
      expect(before).not.toContain('basecamp_move_card');
      expect(client.getInstructions()).toContain('enable one with basecamp_enable_toolset');
      const enabled = resultData<{ added: string[] }>(
        await client.callTool({ name: 'basecamp_enable_toolset', arguments: { toolset: 'cards' } }),
      );
      expect(enabled.added).toContain('basecamp_move_card');
      const after = (await client.listTools()).tools.map((tool) => tool.name);
      expect(changes).toBe(1);
      expect(after).toContain('basecamp_move_card');
      expect(after.filter((name) => name.startsWith('forge_'))).toEqual(
        before.filter((name) => name.startsWith('forge_')),
      );
      const table = resultData<{ columns: { id: number; title: string }[] }>(
        await client.callTool({ name: 'basecamp_get_card_table', arguments: { project_id: 2085958504 } }),
      );
      expect(table.columns.map((column) => column.title)).toContain('Done');
      const unknown = errorBody(
        await client.callTool({ name: 'basecamp_enable_toolset', arguments: { toolset: 'kanban' } }),
      );
      expect(unknown.error_code).toBe('INVALID_INPUT');
      expect(unknown.message).toContain('The toolsets are: projects, todos,');
      expect(unknown.message).toContain('basecamp_list_toolsets describes them');
    } finally {
      await close();
    }
  });

  it('--providers picks providers and --no-prefix drops the default prefixes', async () => {
    const names = await toolNames(['--sandbox', '--providers', 'bbj-rag,context-forge', '--no-prefix']);
    // In the catalog's order (package.json's): BBj RAG, then Context Forge.
    expect(names.slice(0, 3)).toEqual([
      'search_bbj_knowledge',
      'validate_bbj_syntax',
      'bbj_knowledge_status',
    ]);
    expect(names.slice(3, 5)).toEqual(['project_list', 'project_get']);
    expect(names).toHaveLength(12);
  });

  it('really calls through the composition', async () => {
    const { client, close } = await spawnStdioClient({ command: process.execPath, args: [bin, '--sandbox'] });
    try {
      const listed = resultData<{ count: number }>(
        await client.callTool({ name: 'context_forge_project_list', arguments: {} }),
      );
      expect(listed.count).toBe(3);
      const search = await client.callTool({
        name: 'bbj_rag_search_bbj_knowledge',
        arguments: { query: 'BBjGridExWidget', limit: 2 },
      });
      expect(search.isError).toBeFalsy();
    } finally {
      await close();
    }
  });

  // The bin bundles the providers with their dependencies; Basecamp's HTML → Markdown loads a
  // CommonJS plugin, which a bundled chunk exposes differently from Node (html-to-markdown.ts).
  it('converts Basecamp rich text to Markdown and back in the built bin', async () => {
    const { client, close } = await spawnStdioClient({
      command: process.execPath,
      args: [bin, '--sandbox', '--providers', 'basecamp'],
    });
    try {
      const message = resultData<{ content: string }>(
        await client.callTool({ name: 'basecamp_get_message', arguments: { message_id: 1069479583 } }),
      );
      // Strikethrough and the table come from the GFM plugin.
      expect(message.content).toContain('Old date: ~~March 1~~ now March 15.');
      expect(message.content).toContain('| Market | Units |\n| --- | --- |');
      const created = resultData<{ id: number; content: string }>(
        await client.callTool({
          name: 'basecamp_create_message',
          arguments: { project_id: 2085958504, subject: 'Bundled', content: '**Bold** and ~~gone~~' },
        }),
      );
      expect(created.content).toBe('**Bold** and ~~gone~~');
    } finally {
      await close();
    }
  });

  it('names tools as served, with their prefixes, in instructions, descriptions, errors and hints', async () => {
    const config = await configFile({
      providers: { forge: {}, 'context-forge': { prefix: 'cf_' }, basecamp: { prefix: 'bc_' } },
    });
    const { client, close } = await spawnStdioClient({
      command: process.execPath,
      args: [bin, '--sandbox', '--config', config],
    });
    try {
      const instructions = client.getInstructions() ?? '';
      expect(instructions).toContain('forge_list_tickets gives the ticket ids');
      expect(instructions).toContain('Start with cf_project_list for IDs');
      const { tools } = await client.listTools();
      const described = tools.find((tool) => tool.name === 'forge_get_file_changes');
      expect(described?.description).toContain('The whole spec: forge_get_ticket_context.');
      const settlement = tools.find((tool) => tool.name === 'forge_submit_settlement');
      expect(JSON.stringify(settlement?.inputSchema.properties?.divergences)).toContain(
        '(forge_report_scope_change records them',
      );
      expect(JSON.stringify(tools)).not.toMatch(/[\u2060\u2063]/);
      expect(instructions).toContain('Start with bc_list_projects');
      const message = tools.find((tool) => tool.name === 'bc_get_message');
      expect(message?.description).toContain('Replies: bc_list_comments.');
      const messageFields = JSON.stringify(message?.inputSchema.properties);
      expect(messageFields).toContain('from bc_list_messages');
      expect(messageFields).toContain('or bc_search');
      expect(`${message?.description} ${messageFields}`).not.toMatch(
        /\b(list_projects|list_comments|search)\b/,
      );
      const ticket = errorBody(
        await client.callTool({ name: 'forge_get_ticket_context', arguments: { ticketId: 'FOR-404' } }),
      );
      expect(ticket.message).toContain('Use forge_list_tickets to see ticket IDs.');
      const project = errorBody(
        await client.callTool({ name: 'cf_project_get', arguments: { id: 'project_missing' } }),
      );
      expect(project.message).toContain('Use the cf_project_list tool');
    } finally {
      await close();
    }
  });

  it('answers every request piped in before stdin closed, then exits', async () => {
    const requests = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'pipe', version: '1' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'context_forge_project_list', arguments: {} },
      },
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'forge_list_tickets', arguments: {} } },
    ];
    const { code, stdout } = await runProcess({
      command: process.execPath,
      args: [bin, '--sandbox'],
      input: `${requests.map((request) => JSON.stringify(request)).join('\n')}\n`,
    });
    expect(code).toBe(0);
    const answers = stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(answers.map((answer) => answer.id).sort()).toEqual([1, 2, 3, 4]);
    expect(answers.find((answer) => answer.id === 2).result.tools).toHaveLength(
      (await defaultToolNames()).length,
    );
    expect(answers.find((answer) => answer.id === 3).result.structuredContent.count).toBe(3);
    expect(answers.find((answer) => answer.id === 4).result.isError).toBeFalsy();
  });

  it('refuses bad configurations at startup with exit code 2 and the reason', async () => {
    const unknown = run(['--providers', 'forge,jira']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain(
      `Unknown provider(s) jira in --providers. Known: ${PROVIDER_IDS.join(', ')}.`,
    );
    const badConfig = run(['--config', await configFile({ providers: { forge: { includes: [] } } })]);
    expect(badConfig.status).toBe(2);
    expect(badConfig.stderr).toContain('providers.forge.includes: unknown key');
    const unmatched = run([
      '--config',
      await configFile({ providers: { forge: { include: ['no_such_tool'] } } }),
    ]);
    expect(unmatched.status).toBe(2);
    expect(unmatched.stderr).toContain('"no_such_tool" match no tool');
    const empty = run(['--config', await configFile({ providers: {} })]);
    expect(empty.status).toBe(2);
    expect(empty.stderr).toContain('No provider to serve');
  });
});
