import { readFileSync } from 'node:fs';
import { TOOLSET_NAMES as BASECAMP_TOOLSETS, createBasecampProvider } from '@x/mcp-basecamp';
import { createBbjRagProvider } from '@x/mcp-bbj-rag';
import { createContextForgeProvider } from '@x/mcp-context-forge';
import { type ToolProvider, ToolRegistry } from '@x/mcp-core';
import { type ContextCost, measureContextCost } from '@x/mcp-core/testing';
import { createForgeProvider } from '@x/mcp-forge';
import { describe, expect, it } from 'vitest';
import { compose } from '../src/compose.js';

// What each surface costs a model's context, held under the budgets in bench/context-budgets.json
// (changed on purpose only: a surface that grows fails here until its budget is raised in the
// same change, with the reason in docs/benchmarks.md). Measured in process through the same
// registries and SDK server the bins build; the last test checks that against the built bins.

const budgetsFile = new URL('../../../bench/context-budgets.json', import.meta.url);
const budgets = (JSON.parse(readFileSync(budgetsFile, 'utf8')) as { surfaces: Record<string, Budget> })
  .surfaces;

type Budget = Pick<ContextCost, 'modelVisibleBytes' | 'toolsListBytes' | 'instructionsBytes'>;
type Surface = { name: string } & ContextCost;

interface ContextBench {
  SURFACES: readonly { name: string }[];
  measureContext(options: { only: readonly string[] }): Promise<Surface[]>;
}
const bench = async () =>
  (await import(new URL('../../../bench/context.mjs', import.meta.url).href)) as ContextBench;

/** No environment: the bench starts the bins with an empty one too. */
const basecamp = (settings: { toolsets?: string; dynamicToolsets?: boolean } = {}) =>
  createBasecampProvider({ env: {}, ...settings });
const single = (provider: ToolProvider) => new ToolRegistry().use(provider, { readOnly: false });
const composed = async (toolsets?: string) => {
  const registry = new ToolRegistry();
  const entries = await compose({ settings: { basecamp: { env: {}, ...(toolsets ? { toolsets } : {}) } } });
  for (const { provider, use = {} } of entries)
    registry.use(provider, { ...use, readOnly: use.readOnly ?? false });
  return registry;
};

/** Each surface the bench measures, built as its bin builds it. */
const SURFACES: Record<string, () => ToolRegistry | Promise<ToolRegistry>> = {
  'basecamp-mcp': () => single(basecamp()),
  'basecamp-mcp --toolsets all': () => single(basecamp({ toolsets: 'all' })),
  'basecamp-mcp --dynamic-toolsets': () => single(basecamp({ dynamicToolsets: true })),
  ...Object.fromEntries(
    BASECAMP_TOOLSETS.map((toolset) => [
      `basecamp-mcp --toolsets ${toolset}`,
      () => single(basecamp({ toolsets: toolset })),
    ]),
  ),
  'forge-mcp': () => single(createForgeProvider()),
  'context-forge-mcp': () => single(createContextForgeProvider({ env: {} })),
  'bbj-mcp': () => single(createBbjRagProvider()),
  'x-mcp-server': () => composed(),
  'x-mcp-server BASECAMP_TOOLSETS=all': () => composed('all'),
};

async function measure(name: string): Promise<Surface> {
  const build = SURFACES[name];
  if (!build) throw new Error(`no surface ${name}`);
  return { name, ...(await measureContextCost(await build())) };
}

describe('the context cost of every surface', () => {
  it('measures what the bench measures, and every surface has a budget', async () => {
    const names = Object.keys(SURFACES).sort();
    expect((await bench()).SURFACES.map((surface) => surface.name).sort()).toEqual(names);
    expect(Object.keys(budgets).sort()).toEqual(names);
  });

  it('stays within its budget', async () => {
    const over: string[] = [];
    for (const name of Object.keys(SURFACES)) {
      const measured = await measure(name);
      for (const key of ['modelVisibleBytes', 'toolsListBytes', 'instructionsBytes'] as const) {
        const budget = budgets[name]?.[key];
        if (budget === undefined || measured[key] > budget) {
          over.push(`${name}: ${key} ${measured[key]} is over its budget of ${budget}`);
        }
      }
    }
    expect(over).toEqual([]);
  });

  it('measures in process what the built bins send', async () => {
    // In the bench's order.
    const names = ['basecamp-mcp --dynamic-toolsets', 'forge-mcp', 'x-mcp-server'];
    const spawned = await (await bench()).measureContext({ only: names });
    expect(spawned).toEqual(await Promise.all(names.map(measure)));
  });
});
