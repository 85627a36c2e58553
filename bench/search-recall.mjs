// The search surface of the composed server, measured (issue #25): how few model-visible tokens
// reach the whole of it (x-mcp-server --surface search with every Basecamp toolset), and how
// often search_tools puts the right tool first (recall@1) and among the first three (recall@3)
// for the task phrasings in bench/search-eval.json. Needs a build (pnpm build).
//
//   node bench/search-recall.mjs            prints the figures and every miss
//   node bench/search-recall.mjs --json     one JSON object (for bench:context)
//
// Model-visible size of a tool: the UTF-8 bytes of JSON.stringify({ name, description,
// input_schema }), what the Messages API and function calling carry (output schemas are not
// shown to the model); tokens ≈ bytes / 3.6.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BYTES_PER_TOKEN, contextCost } from '@x/mcp-core/testing';
import { initializeParams, ROOT, StdioDriver, stop } from './lib.mjs';

const BIN = join(ROOT, 'apps/server/dist/bin.js');
const EVAL = join(ROOT, 'bench/search-eval.json');

/**
 * Starts x-mcp-server on the search surface (every provider, every Basecamp toolset), asks search_tools every phrasing of the evaluation set, and returns the figures.
 */
export async function searchRecall({ cases = JSON.parse(readFileSync(EVAL, 'utf8')).cases } = {}) {
  const server = new StdioDriver([BIN, '--surface', 'search'], {
    env: { BASECAMP_TOOLSETS: 'all', MCP_LOG_LEVEL: 'warn' },
  });
  try {
    return await server.bounded(60_000, 'the search recall run', async () => {
      await server.request('initialize', initializeParams);
      server.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const { tools } = await server.request('tools/list');
      const bytes = contextCost({ tools }).modelVisibleBytes;
      const reached = Number(/(\d+) tools/.exec(tools[0]?.description ?? '')?.[1] ?? Number.NaN);
      let first = 0;
      let top3 = 0;
      const misses = [];
      for (const { query, tools: wanted } of cases) {
        const result = await server.request('tools/call', {
          name: 'search_tools',
          arguments: { query, limit: 3 },
        });
        const found = (result.structuredContent?.tools ?? []).map((tool) => tool.name);
        if (wanted.includes(found[0])) first += 1;
        if (found.some((name) => wanted.includes(name))) top3 += 1;
        else misses.push({ query, wanted, found });
      }
      return {
        surface: tools.map((tool) => tool.name),
        reached,
        bytes,
        tokens: Math.round(bytes / BYTES_PER_TOKEN),
        cases: cases.length,
        recallAt1: first / cases.length,
        recallAt3: top3 / cases.length,
        misses,
      };
    });
  } finally {
    await stop(server.child);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await searchRecall();
  if (process.argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } else {
    const percent = (value) => `${(value * 100).toFixed(1)} %`;
    console.log(`x-mcp-server --surface search (BASECAMP_TOOLSETS=all): ${result.surface.join(', ')}`);
    console.log(
      `  reaches ${result.reached} tools for ${result.bytes} model-visible bytes ≈ ${result.tokens} tokens (bytes / ${BYTES_PER_TOKEN})`,
    );
    console.log(
      `  ${result.cases} task phrasings: recall@1 ${percent(result.recallAt1)}, recall@3 ${percent(result.recallAt3)}`,
    );
    for (const miss of result.misses) {
      console.log(
        `  miss: "${miss.query}" wanted ${miss.wanted.join(' | ')}, got ${miss.found.join(', ') || 'nothing'}`,
      );
    }
  }
}
