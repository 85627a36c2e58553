import { request } from 'node:http';
import { connect } from 'node:net';
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

  it('refuses to listen beyond loopback without a token, naming only real flags and variables', () => {
    const env = { ...process.env };
    delete env.MCP_HTTP_TOKEN;
    const result = runFixtureBin(['--http', '--host', '0.0.0.0', '--port', '0'], env);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('refusing to listen on 0.0.0.0 without a bearer token');
    expect(result.stderr).toContain('MCP_HTTP_TOKEN');
    expect(result.stderr).toContain('--allow-unauthenticated');
    expect(result.stderr).not.toContain('[mcp-core]');
    expect(result.stderr).not.toContain('allowUnauthenticated');
    const help = runFixtureBin(['--help']).stdout;
    for (const flag of result.stderr.match(/--[a-z][a-z-]*/g) ?? []) expect(help).toContain(`${flag} `);
    for (const variable of result.stderr.match(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/g) ?? []) {
      expect(help).toContain(variable);
    }
  });

  it('takes its socket timeouts from MCP_HTTP_*_TIMEOUT and refuses a bad one', async () => {
    const { child, url } = await startHttpBin({
      ...fixtureBin,
      args: [...fixtureBin.args, '--http', '--port', '0'],
      env: { MCP_HTTP_HEADERS_TIMEOUT: '200', MCP_HTTP_REQUEST_TIMEOUT: '400' },
    });
    try {
      // Half a request, then silence: the bin hangs up after its short headers timeout.
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(new URL(url).port), '127.0.0.1');
        let text = '';
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString('latin1');
        });
        socket.on('error', reject);
        socket.on('close', () => resolve(text));
        socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      });
      expect(answer === '' || answer.startsWith('HTTP/1.1 408')).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
    const bad = runFixtureBin(['--http', '--port', '0'], { ...process.env, MCP_HTTP_HEADERS_TIMEOUT: '10s' });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('MCP_HTTP_HEADERS_TIMEOUT must be a positive whole number of milliseconds');
    const help = runFixtureBin(['--help']).stdout;
    for (const name of [
      'MCP_HTTP_HEADERS_TIMEOUT',
      'MCP_HTTP_REQUEST_TIMEOUT',
      'MCP_HTTP_KEEPALIVE_TIMEOUT',
    ]) {
      expect(help).toContain(name);
    }
  });

  it('refuses HTTP-only flags without --http instead of ignoring them (exit code 2)', () => {
    const result = runFixtureBin(['--port', '8080']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('--port only applies with --http');
    expect(result.stdout).toBe('');
  });

  it('guards /healthz and /readyz with the same Host and Origin checks as the MCP endpoint', async () => {
    const { child, url } = await startHttpBin({
      ...fixtureBin,
      args: [...fixtureBin.args, '--http', '--port', '0'],
    });
    const get = (path: string, headers: Record<string, string>) =>
      new Promise<number | undefined>((resolve, reject) => {
        const req = request(new URL(path, url), { headers }, (res) => {
          res.resume();
          resolve(res.statusCode);
        });
        req.on('error', reject);
        req.end();
      });
    try {
      for (const path of ['/healthz', '/readyz']) {
        expect(await get(path, {})).toBe(200);
        expect(await get(path, { host: 'evil.example' })).toBe(403);
        expect(await get(path, { origin: 'https://evil.example' })).toBe(403);
      }
    } finally {
      child.kill('SIGKILL');
    }
  });
});
