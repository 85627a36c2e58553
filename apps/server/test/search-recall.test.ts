import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ConnectedClient, contextCost, runProcess, spawnStdioClient } from '@x/mcp-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin } from './helpers.js';

const SURFACE = ['search_tools', 'describe_tool', 'call_tool'];
const EVERYTHING = { BASECAMP_TOOLSETS: 'all' };

interface EvalCase {
  query: string;
  tools: string[];
}

async function connect(args: string[], env: Record<string, string> = {}): Promise<ConnectedClient> {
  return spawnStdioClient({
    command: process.execPath,
    args: [bin, ...args],
    env: { ...EVERYTHING, ...env },
  });
}

describe('x-mcp-server --surface search over every provider and every Basecamp toolset', () => {
  let search: ConnectedClient;
  beforeAll(async () => {
    search = await connect(['--surface', 'search']);
  });
  afterAll(() => search.close());

  it('reaches every tool of the list surface within 1.5k model-visible tokens', async () => {
    const list = await connect([]);
    const all = (await list.client.listTools()).tools;
    await list.close();
    const { tools } = await search.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(SURFACE);
    expect(contextCost({ tools }).tokens).toBeLessThanOrEqual(1_500);
    expect(tools[0]?.description).toContain(`${all.length} tools`);
    expect(all.length).toBeGreaterThan(150);
    // call_tool can reach tools that delete: its annotations say so.
    expect(tools[2]?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it('finds the tool for the evaluation set: recall@3 ≥ 90 %, recall@1 ≥ 70 % (bench/search-recall.mjs prints them)', async () => {
    const { cases } = JSON.parse(
      await readFile(new URL('../../../bench/search-eval.json', import.meta.url), 'utf8'),
    ) as { cases: EvalCase[] };
    expect(cases.length).toBeGreaterThanOrEqual(80);
    const providers = new Set(cases.flatMap((each) => each.tools.map((tool) => tool.split('_')[0])));
    expect([...providers].sort()).toEqual(['basecamp', 'bbj', 'context', 'forge']);
    let first = 0;
    let top3 = 0;
    const misses: string[] = [];
    for (const { query, tools: wanted } of cases) {
      const result = await search.client.callTool({ name: 'search_tools', arguments: { query, limit: 3 } });
      const found = ((result.structuredContent as { tools: Array<{ name: string }> }).tools ?? []).map(
        (tool) => tool.name,
      );
      if (wanted.includes(found[0] ?? '')) first += 1;
      if (found.some((name) => wanted.includes(name))) top3 += 1;
      else misses.push(`${query} → ${found.join(', ')}`);
    }
    expect(top3 / cases.length, `misses:\n${misses.join('\n')}`).toBeGreaterThanOrEqual(0.9);
    expect(first / cases.length).toBeGreaterThanOrEqual(0.7);
  });
});

describe('choosing the surface', () => {
  it('the config file says surface: "search"; --surface list overrides it', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'server-surface-')), 'server.json');
    await writeFile(file, JSON.stringify({ surface: 'search', providers: { forge: {} } }));
    const configured = await connect(['--sandbox', '--config', file]);
    try {
      expect((await configured.client.listTools()).tools.map((tool) => tool.name)).toEqual(SURFACE);
    } finally {
      await configured.close();
    }
    const overridden = await connect(['--sandbox', '--config', file, '--surface', 'list']);
    try {
      const names = (await overridden.client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('forge_get_ticket_context');
      expect(names).not.toContain('search_tools');
    } finally {
      await overridden.close();
    }
  });

  it('a config file with another surface is refused, naming the key', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'server-surface-')), 'server.json');
    await writeFile(file, JSON.stringify({ surface: 'compact' }));
    const result = await runProcess({
      command: process.execPath,
      args: [bin, '--config', file],
      env: EVERYTHING,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('surface');
  });
});
