import { describe, expect, it } from 'vitest';
import { createBasecampProvider } from './index.js';
import { loadBasecampProvider } from './load.js';
import { TOOL_SPECS } from './tools/index.js';
import { loadToolSpecs, modulesFor, TOOL_MODULES, type ToolModuleName } from './tools/lazy.js';
import { type BasecampToolSpec, parseToolsets, selects, TOOLSET_NAMES } from './toolsets.js';

const env = { BASECAMP_ACCESS_TOKEN: 'token', BASECAMP_ACCOUNT_ID: '1' };
const names = Object.keys(TOOL_MODULES) as ToolModuleName[];

describe('tools loaded by toolset', () => {
  it('declares every module with the toolsets of its tools, and every tool in one module', async () => {
    const found = new Map<BasecampToolSpec, ToolModuleName>();
    for (const name of names) {
      const module = await TOOL_MODULES[name].load();
      const specs = Object.values(module).filter((value): value is BasecampToolSpec =>
        TOOL_SPECS.includes(value as BasecampToolSpec),
      );
      expect(specs.length, name).toBeGreaterThan(0);
      expect(new Set(TOOL_MODULES[name].toolsets), name).toEqual(new Set(specs.map((spec) => spec.toolset)));
      expect(TOOL_MODULES[name].inDefault, name).toBe(specs.some((spec) => spec.inDefault));
      for (const spec of specs) {
        expect(found.get(spec), name).toBeUndefined();
        found.set(spec, name);
      }
    }
    expect(found.size).toBe(TOOL_SPECS.length);
  });

  it('loads every tool for all, in the order of TOOL_SPECS', async () => {
    expect(await loadToolSpecs('all')).toEqual(TOOL_SPECS);
  });

  it('serves the same tools, in the same order, for every choice of toolsets', async () => {
    for (const choice of [undefined, 'all', 'default,cards', 'todos,admin', ...TOOLSET_NAMES]) {
      const selection = parseToolsets(choice);
      const served = (await loadToolSpecs(selection)).filter((spec) => selects(selection, spec));
      expect(served, String(choice)).toEqual(TOOL_SPECS.filter((spec) => selects(selection, spec)));
    }
  });

  it('loads no module of a toolset that is not served', () => {
    const defaults = modulesFor(parseToolsets(undefined));
    expect(defaults.length).toBeGreaterThan(0);
    for (const name of defaults) expect(TOOL_MODULES[name].inDefault, name).toBe(true);
    expect(names.filter((name) => !defaults.includes(name)).length).toBeGreaterThan(20);
    const todos = modulesFor(parseToolsets('todos'));
    for (const name of todos) expect(TOOL_MODULES[name].toolsets, name).toContain('todos');
    expect(todos).not.toContain('cards/list-cards');
    expect(modulesFor('all')).toEqual(names);
  });

  it('builds the provider createBasecampProvider builds', async () => {
    for (const settings of [
      { env },
      { env, toolsets: 'all' },
      { env, toolsets: 'cards,chat' },
      { env, dynamicToolsets: true },
      { env, toolsets: 'todos', dynamicToolsets: true },
    ]) {
      const eager = createBasecampProvider(settings);
      const lazy = await loadBasecampProvider(settings);
      const label = JSON.stringify(settings);
      expect(
        lazy.tools.map((tool) => tool.name),
        label,
      ).toEqual(eager.tools.map((tool) => tool.name));
      expect(lazy.instructions, label).toBe(eager.instructions);
      expect(lazy.toolsets, label).toEqual(eager.toolsets);
      expect(
        lazy.resources?.map((resource) => resource.name),
        label,
      ).toEqual(eager.resources?.map((resource) => resource.name));
      for (const toolset of TOOLSET_NAMES) {
        expect(
          lazy.loadToolset?.(toolset).map((tool) => tool.name),
          `${label} ${toolset}`,
        ).toEqual(eager.loadToolset?.(toolset).map((tool) => tool.name));
      }
    }
  });
});
