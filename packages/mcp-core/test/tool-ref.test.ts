import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defineTool,
  NotFoundError,
  renderToolRefs,
  renderToolRefsDeep,
  ToolRegistry,
  toolRef,
  toolRefsIn,
} from '../src/index.js';
import { errorBody, resultText } from '../src/testing/index.js';

const search = defineTool({
  name: 'search',
  description: `Searches everything. To open a hit, call ${toolRef('open_hit')}; to search again, search with other words.`,
  inputSchema: z.strictObject({ q: z.string().describe('What to search for') }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: ({ q }) => {
    if (q === '')
      throw new NotFoundError('Nothing to search.', { details: { hint: `Try ${toolRef('search')}.` } });
    return `Found one result for ${q}; search again or call ${toolRef('open_hit')}.`;
  },
});
const openHit = defineTool({
  name: 'open_hit',
  description: `Opens a hit found by ${toolRef('search')}.`,
  inputSchema: z.strictObject({ id: z.string().describe(`A hit id from ${toolRef('search')}`) }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: ({ id }) => id,
});
const provider = {
  id: 'docs',
  version: '1.0.0',
  instructions: `Start with ${toolRef('search')}.`,
  tools: [search, openHit],
};

describe('toolRef', () => {
  it('reads as the bare name when not rendered, and lists what it references', () => {
    const text = `Use ${toolRef('list_tickets')} or ${toolRef('get_ticket')}.`;
    expect(renderToolRefs(text)).toBe('Use list_tickets or get_ticket.');
    expect(toolRefsIn(text)).toEqual(['list_tickets', 'get_ticket']);
    expect(renderToolRefs('search and search', (name) => `x_${name}`)).toBe('search and search');
  });

  it('renders nested values and keeps the very same object when there is nothing to render', () => {
    const plain = { a: ['x', { b: 'y' }] };
    expect(renderToolRefsDeep(plain, (name) => `p_${name}`)).toBe(plain);
    expect(renderToolRefsDeep({ a: [`see ${toolRef('t')}`] }, (name) => `p_${name}`)).toEqual({
      a: ['see p_t'],
    });
  });

  it('renders descriptions, field descriptions, instructions and results with the prefix, never plain words', async () => {
    const registry = new ToolRegistry().use(provider, { prefix: 'kb_' });
    const [first, second] = registry.toMcpTools();
    expect(first?.description).toBe(
      'Searches everything. To open a hit, call kb_open_hit; to search again, search with other words.',
    );
    expect(second?.description).toBe('Opens a hit found by kb_search.');
    expect(JSON.stringify(second?.inputSchema)).toContain('A hit id from kb_search');
    expect(registry.instructions).toBe('Start with kb_search.');
    expect(resultText(await registry.call('kb_search', { q: 'x' }))).toBe(
      'Found one result for x; search again or call kb_open_hit.',
    );
    expect(errorBody(await registry.call('kb_search', { q: '' })).hint).toBe('Try kb_search.');
  });

  it('renders bare names without a prefix', async () => {
    const registry = new ToolRegistry().use(provider);
    expect(registry.toMcpTools()[1]?.description).toBe('Opens a hit found by search.');
    expect(errorBody(await registry.call('search', { q: '' })).hint).toBe('Try search.');
  });
});
