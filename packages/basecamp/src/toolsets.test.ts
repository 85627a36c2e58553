import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ConfigError, ToolRegistry } from '@x/mcp-core';
import { connectInMemory, spawnStdioClient } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { createBasecampProvider } from './index.js';
import { TOOL_SPECS } from './tools/index.js';
import { TOOLSET_NAMES } from './toolsets.js';

const names = (settings: Parameters<typeof createBasecampProvider>[0]) =>
  createBasecampProvider({ env: {}, ...settings }).tools.map((tool) => tool.name);

describe('toolsets', () => {
  it('serves a small default set when nothing is chosen', () => {
    const chosen = names({});
    expect(chosen.length).toBeGreaterThan(0);
    expect(chosen.length).toBeLessThanOrEqual(25);
    expect(chosen).toContain('list_projects');
    expect(chosen).toEqual(names({ toolsets: 'default' }));
  });

  it('serves every tool with all, and one toolset alone by name', () => {
    expect(names({ toolsets: 'all' })).toHaveLength(TOOL_SPECS.length);
    const todos = names({ toolsets: ['todos'] });
    expect(todos).toContain('create_todo');
    expect(todos).not.toContain('list_projects');
    const combined = names({ toolsets: 'default, todos' });
    expect(new Set(combined)).toEqual(new Set([...names({}), ...todos]));
  });

  it('reads BASECAMP_TOOLSETS when the setting is absent; the setting wins', () => {
    expect(names({ env: { BASECAMP_TOOLSETS: 'chat' } })).toEqual(names({ toolsets: 'chat' }));
    expect(names({ toolsets: 'docs', env: { BASECAMP_TOOLSETS: 'chat' } })).toEqual(
      names({ toolsets: 'docs' }),
    );
  });

  it('refuses an unknown toolset, naming the known ones', () => {
    expect(() => names({ toolsets: 'todos,kanban' })).toThrow(ConfigError);
    expect(() => names({ toolsets: 'kanban' })).toThrow(/Unknown Basecamp toolset "kanban".*cards/);
  });

  it('gives every toolset at least one tool, and every tool a toolset', () => {
    for (const toolset of TOOLSET_NAMES) {
      if (TOOL_SPECS.some((spec) => spec.toolset === toolset))
        expect(names({ toolsets: toolset }).length).toBeGreaterThan(0);
    }
    const all = new Set(names({ toolsets: 'all' }));
    const union = new Set(TOOLSET_NAMES.flatMap((toolset) => names({ toolsets: toolset })));
    expect(union).toEqual(all);
  });

  it('tells the model which toolsets it has and which it could ask for', async () => {
    const connection = await connectInMemory(
      new ToolRegistry().use(createBasecampProvider({ env: {}, toolsets: 'todos' })),
    );
    try {
      const text = connection.client.getInstructions() ?? '';
      expect(text).toContain('Toolsets served: todos.');
      expect(text).toMatch(/Not served .*cards \(Card tables/);
      expect((await connection.client.listTools()).tools.map((tool) => tool.name)).toEqual(
        names({ toolsets: 'todos' }),
      );
    } finally {
      await connection.close();
    }
  });

  it('leaves write tools out under read-only', () => {
    const registry = new ToolRegistry().use(createBasecampProvider({ env: {}, toolsets: 'all' }), {
      readOnly: true,
    });
    const served = registry.getAll();
    expect(served.length).toBeGreaterThan(0);
    expect(served.every((tool) => tool.annotations.readOnlyHint)).toBe(true);
  });
});

describe('toolsets in the built bin', () => {
  const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

  it('lists every toolset in --help', () => {
    const help = spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8' });
    for (const toolset of TOOLSET_NAMES) expect(help.stdout).toContain(toolset);
    expect(help.stdout).toContain('--toolsets');
    expect(help.stdout).toContain('BASECAMP_TOOLSETS');
  });

  it('serves the toolsets of --toolsets, over BASECAMP_TOOLSETS', async () => {
    const { client, close } = await spawnStdioClient({
      command: process.execPath,
      args: [bin, '--sandbox', '--toolsets', 'chat'],
      env: { BASECAMP_TOOLSETS: 'todos' },
    });
    try {
      const served = (await client.listTools()).tools.map((tool) => tool.name);
      expect(served).toEqual(names({ toolsets: 'chat' }));
    } finally {
      await close();
    }
  });

  it('stops with a clear message on an unknown toolset', () => {
    const run = spawnSync(process.execPath, [bin, '--toolsets', 'kanban'], { encoding: 'utf8', input: '' });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('Unknown Basecamp toolset "kanban"');
    expect(run.stdout).toBe('');
  });
});
