import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

it('pnpm demo says what it builds, then walks through the agent session on all four providers and exits 0', () => {
  // What `pnpm demo` runs: the build (cached here) with progress on stderr, then the demo.
  const script = fileURLToPath(new URL('../../../scripts/demo.mjs', import.meta.url));
  const run = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 120_000 });
  expect(run.stderr).toMatch(/^Building the demo|^First run: building the demo/);
  expect(run.stderr).toContain('@x/mcp-core:build');
  expect(run.stderr).toMatch(/Built in \d+ s\. Starting the demo\./);
  expect(run.status).toBe(0);
  const out = run.stdout;
  // 47 tools and Basecamp's list_toolsets and enable_toolset.
  expect(out).toMatch(/connected to x-mcp-server [\d.]+: 49 tools/);
  for (const heading of [
    '1. Forge',
    '2. Context Forge',
    '3. BBj documentation',
    '4. Basecamp',
    '5. Basecamp: move a card and answer a check-in',
    '6. Mistakes',
    '7. Prompts and resources',
  ]) {
    expect(out).toContain(heading);
  }
  expect(out).toContain('→ forge_get_ticket_context {"ticketId":"FOR-1"}');
  expect(out).toContain('slice: for-1-password-reset');
  expect(out).toContain('### Current Work Context');
  expect(out).toContain('## Result 1: BBjWindow::addButton');
  expect(out).toContain('created to-do 1100000000  Review FOR-1 once merged');
  expect(out).toMatch(/cards {5}off \(0\/15 tools served\)/);
  expect(out).toMatch(
    /→ basecamp_enable_toolset \{"toolset":"cards"\}\n {2}✓\n {4}added 15 tools: basecamp_get_card_table,/,
  );
  expect(out).toContain('notifications/tools/list_changed received 1×; tools/list → 64 tools');
  expect(out).toContain('"Pick the hinge supplier" is now in Review');
  expect(out).toMatch(/→ basecamp_enable_toolset \{"toolset":"checkins"\}\n {2}✓\n {4}added 10 tools:/);
  expect(out).toContain('What did you work on today?');
  expect(out).toContain('answered as Victor Cooper: Picked up **FOR-1** and moved the hinge card to Review.');
  expect(out).toContain('"error_code": "NOT_FOUND"');
  expect(out).toContain('"error_code": "INVALID_INPUT"');
  expect(out).toContain(
    'GET /readyz  → 200 basecamp: ready, bbj-rag: ready, context-forge: ready, forge: ready',
  );
  expect(out).toContain('POST /mcp without the token → 401');
  // The same configuration over HTTP: a request starts where the stdio session began.
  expect(out).toMatch(/tools\/list over HTTP → 49 tools \(as the stdio session began/);
  expect(out).not.toMatch(/\(1 cards\)/);
  expect(out).toMatch(/\(\d+ cards?\)/);
  expect(out).toContain(
    '✓ 7 prompts: context_forge_context, context_forge_template, forge_list, forge_execute, forge_develop, forge_review, forge_exec',
  );
  expect(out).toMatch(/completion\/complete forge_execute ticketId "FOR"\n {2}✓ FOR-1, FOR-2/);
  expect(out).toContain('✓ Execute a Forge ticket: Add password reset by email');
  expect(out).toContain('context-forge://projects/{id}/context, forge://tickets/{ticketId}');
  expect(out).toMatch(
    /resources\/read forge:\/\/tickets\/FOR-1\n {2}✓ text\/markdown\n {4}# Add password reset by email/,
  );
  expect(out.trimEnd().endsWith('Demo complete.')).toBe(true);
  // Every exchange succeeded except the two deliberate mistakes.
  expect(out.match(/✗ tool error/g)).toHaveLength(2);
});
