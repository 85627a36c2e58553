import { startProcess } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { bin } from './helpers.js';

// The policy variables and command outside --auth oauth's Node (the policy itself is tested in
// @x/mcp-hosted, with the built server: packages/hosted/src/policy-bin.test.ts).
describe('MCP_POLICY and MCP_RATE_LIMIT outside --auth oauth', () => {
  it.each(['MCP_POLICY', 'MCP_RATE_LIMIT'])(
    '%s with --auth token stops the start: it would not apply',
    async (name) => {
      const running = startProcess({
        command: process.execPath,
        args: [bin, '--http', '--port', '0', '--providers', 'bbj-rag'],
        env: { MCP_HTTP_TOKEN: 'a-token-of-some-length-0123456789', MCP_AUTH: undefined, [name]: '60/min' },
      });
      expect(await running.exited).toBe(2);
      expect(running.stderr()).toContain(`${name} applies to --auth oauth only`);
    },
  );

  it('policy: usage errors exit 2 with the usage', async () => {
    for (const args of [
      ['policy'],
      ['policy', 'explain'],
      ['policy', 'check', 'a', 'b'],
      ['policy', 'nope', 'x'],
    ]) {
      const running = startProcess({ command: process.execPath, args: [bin, ...args], env: {} });
      expect(await running.exited, args.join(' ')).toBe(2);
      expect(running.stderr()).toContain('Usage: x-mcp-server policy explain <email>');
    }
    const help = startProcess({ command: process.execPath, args: [bin, 'policy', '--help'], env: {} });
    expect(await help.exited).toBe(0);
    expect(help.stdout()).toContain('x-mcp-server policy check [<file>]');
  });

  it.runIf(Number(process.versions.node.split('.')[0]) < 22)(
    'policy explain needs Node 22.12, as the server does',
    async () => {
      const running = startProcess({
        command: process.execPath,
        args: [bin, 'policy', 'explain', 'a@example.com', '--policy', '/nonexistent.json'],
        env: {},
      });
      expect(await running.exited).toBe(2);
      expect(running.stderr()).toContain('Node.js 22.12');
    },
  );
});
