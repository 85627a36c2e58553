import { describe, expect, it } from 'vitest';
import { connectHttp, resultData, startHttpBin } from '../src/testing/index.js';
import { fixtureBin, runFixtureBin } from './fixtures/spawn-bin.js';

describe('a bin started with --http', () => {
  it('serves a real client over HTTP, requires MCP_HTTP_TOKEN when set, and exits cleanly on SIGTERM', async () => {
    const token = 'runner-test-token';
    const { child, stdout, stderr, url, exited } = await startHttpBin({
      ...fixtureBin,
      args: [...fixtureBin.args, '--http', '--port', '0', '--include', 'add,whoami'],
      env: { MCP_HTTP_TOKEN: token },
    });
    try {
      expect(stderr()).toContain('(bearer token required)');
      expect(stderr()).not.toContain(token);
      const unauthorized = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(unauthorized.status).toBe(401);
      const connection = await connectHttp(url, { token });
      try {
        expect((await connection.client.listTools()).tools.map((tool) => tool.name)).toEqual([
          'add',
          'whoami',
        ]);
        expect(
          resultData(await connection.client.callTool({ name: 'add', arguments: { a: 1, b: 1 } })),
        ).toEqual({ sum: 2 });
      } finally {
        await connection.close();
      }
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(stdout()).toBe('');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('refuses to listen beyond loopback without a token (exit code 2)', () => {
    const env = { ...process.env };
    delete env.MCP_HTTP_TOKEN;
    const result = runFixtureBin(['--http', '--host', '0.0.0.0', '--port', '0'], env);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('Refusing to listen on 0.0.0.0 without a bearer token');
  });
});
