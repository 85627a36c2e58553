#!/usr/bin/env node
// @x/mcp-basecamp measurements beyond bench/providers.mjs, against the fake Basecamp in this process:
//   1. upstream requests per tool call in a typical agent session, cold and warm (ETag cache, dock cache)
//   2. HTML -> Markdown throughput on large messages
//   3. a 200-call burst against a server enforcing 50 requests / 10 s: RATE_LIMITED results, 429s,
//      and the total time against the theoretical minimum
//
//   node bench/basecamp/session.mjs              all three
//   node bench/basecamp/session.mjs --skip-burst the first two (the burst takes ~30 s by design)
//
// Build first: pnpm --filter @x/mcp-basecamp... build
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createBasecampProvider, loadHtmlToMarkdown } from '../../packages/basecamp/dist/index.js';
import {
  DOCK,
  IDS,
  LAPTOP,
  RICH_MESSAGE_HTML,
  startFakeBasecamp,
} from '../../packages/basecamp/dist/testing/index.js';
import { ToolRegistry } from '../../packages/mcp-core/dist/index.js';
import { connectInMemory, errorBody } from '../../packages/mcp-core/dist/testing/index.js';

const { values: flags } = parseArgs({ options: { 'skip-burst': { type: 'boolean', default: false } } });

const providerFor = (fake, extra = {}) =>
  createBasecampProvider({
    apiUrl: fake.url,
    accessToken: fake.accessToken,
    accountId: fake.accountId,
    env: {},
    ...extra,
  });

// --- 1. requests per tool call, cold and warm ---
{
  const fake = await startFakeBasecamp();
  const connection = await connectInMemory(new ToolRegistry().use(providerFor(fake)));
  const session = [
    ['list_projects', {}],
    ['get_project_tools', { project_id: LAPTOP }],
    ['list_messages', { project_id: LAPTOP, limit: 25 }],
    ['get_message', { message_id: IDS.richMessage }],
    ['list_comments', { recording_id: IDS.richMessage }],
    ['list_todolists', { project_id: LAPTOP }],
    ['list_todos', { todolist_id: IDS.launchList, limit: 50 }],
    ['get_todo', { todo_id: IDS.assignedTodo }],
    ['list_campfire_lines', { project_id: LAPTOP, chat_id: DOCK.laptop.chat }],
    ['search', { query: 'launch' }],
  ];
  const rows = session.map(([name]) => ({ name, cold: [0, 0], warm: [0, 0] }));
  for (const phase of ['cold', 'warm']) {
    for (const [index, [name, args]] of session.entries()) {
      fake.resetLog();
      const result = await connection.client.callTool({ name, arguments: args });
      if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
      const full = fake.requests.filter((request) => request.status === 200).length;
      const notModified = fake.requests.filter((request) => request.status === 304).length;
      rows[index][phase] = [full, notModified];
    }
  }
  const cell = ([full, notModified]) => `${full + notModified} (${full} × 200, ${notModified} × 304)`;
  const sum = (phase) =>
    rows.reduce((total, row) => [total[0] + row[phase][0], total[1] + row[phase][1]], [0, 0]);
  console.log('\n### Upstream requests per tool call (one agent session, then the same session again)\n');
  console.log('| tool call | cold | warm |');
  console.log('| --- | --- | --- |');
  for (const row of rows) console.log(`| \`${row.name}\` | ${cell(row.cold)} | ${cell(row.warm)} |`);
  console.log(`| **session** | **${cell(sum('cold'))}** | **${cell(sum('warm'))}** |`);
  await connection.close();
  await fake.close();
}

// --- 2. HTML -> Markdown throughput ---
{
  const toMarkdown = await loadHtmlToMarkdown();
  console.log(
    '\n### HTML → Markdown (the rich fixture message repeated: mentions, images, files, code, tables)\n',
  );
  console.log('| message size | conversions/s | MB of HTML/s | median ms |');
  console.log('| ---: | ---: | ---: | ---: |');
  // 250 copies (about 490 KB) stay under MAX_HTML_CHARS, so the whole body is converted.
  for (const copies of [1, 10, 100, 250]) {
    const html = RICH_MESSAGE_HTML.repeat(copies);
    for (let warm = 0; warm < 3; warm++) toMarkdown(html);
    const samples = [];
    const deadline = performance.now() + 2_000;
    while (performance.now() < deadline || samples.length < 5) {
      const started = performance.now();
      const markdown = toMarkdown(html);
      samples.push(performance.now() - started);
      if (markdown.includes('<bc-attachment')) throw new Error('HTML left in the Markdown');
    }
    samples.sort((a, b) => a - b);
    const median = samples[Math.floor(samples.length / 2)];
    const kb = html.length / 1024;
    console.log(
      `| ${kb < 1024 ? `${kb.toFixed(0)} KB` : `${(kb / 1024).toFixed(1)} MB`} | ${(1000 / median).toFixed(0)} | ${((html.length / 1024 / 1024) * (1000 / median)).toFixed(1)} | ${median.toFixed(2)} |`,
    );
  }
}

// --- 3. the burst ---
if (!flags['skip-burst']) {
  const REQUESTS = 50;
  const WINDOW_MS = 10_000;
  const CALLS = 200;
  const fake = await startFakeBasecamp({ rateLimit: { requests: REQUESTS, windowMs: WINDOW_MS } });
  const connection = await connectInMemory(
    new ToolRegistry({ timeoutMs: 120_000 }).use(
      providerFor(fake, { rateLimitRequests: REQUESTS, rateLimitWindowMs: WINDOW_MS }),
    ),
  );
  const started = performance.now();
  const results = await Promise.all(
    Array.from({ length: CALLS }, (_, index) =>
      connection.client.callTool({ name: 'get_todo', arguments: { todo_id: 1069490001 + (index % 130) } }),
    ),
  );
  const elapsed = performance.now() - started;
  const codes = results.filter((result) => result.isError).map((result) => errorBody(result).error_code);
  const minimum = (Math.ceil(CALLS / REQUESTS) - 1) * WINDOW_MS;
  console.log(
    `\n### ${CALLS}-call burst against a server enforcing ${REQUESTS} requests / ${WINDOW_MS / 1000} s\n`,
  );
  console.log(
    '| calls | errors | RATE_LIMITED results | 429s received | total time | theoretical minimum | ratio |',
  );
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  console.log(
    `| ${CALLS} | ${codes.length} | ${codes.filter((code) => code === 'RATE_LIMITED').length} | ${fake.rateLimited} | ${(elapsed / 1000).toFixed(2)} s | ${(minimum / 1000).toFixed(0)} s | ${(elapsed / minimum).toFixed(3)}× |`,
  );
  await connection.close();
  await fake.close();
}
