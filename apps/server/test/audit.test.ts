// MCP_AUDIT outside --auth oauth, on the machine's Node (20): the stdio server keeps a file audit
// log when asked (off by default); a bearer-token HTTP server can write it to stdout; what cannot
// work is refused at start with a clear message; `audit verify | tail` read it on Node 20.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectHttp, runProcess, spawnStdioClient } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { bin, startHttpServer } from './helpers.js';

const lines = (text: string) =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));

describe('the audit log outside --auth oauth', () => {
  it('stdio: off by default; MCP_AUDIT=file:<path> records every call, redacted, verifiable', async () => {
    const home = await mkdtemp(join(tmpdir(), 'audit-stdio-'));
    const path = join(home, 'logs', 'audit.jsonl');
    const plain = await spawnStdioClient({
      command: process.execPath,
      args: [bin, '--sandbox'],
      env: { HOME: home },
    });
    await plain.client.callTool({ name: 'basecamp_list_projects', arguments: {} });
    await plain.close();
    expect(existsSync(path)).toBe(false);

    const secretText = 'a private note that must not reach the log';
    const { client, close } = await spawnStdioClient({
      command: process.execPath,
      args: [bin, '--sandbox'],
      env: { HOME: home, MCP_AUDIT: `file:${path}` },
    });
    await client.callTool({ name: 'basecamp_list_projects', arguments: {} });
    await client.callTool({ name: 'basecamp_search', arguments: { query: secretText } });
    await client.callTool({ name: 'basecamp_get_todo', arguments: { project_id: 1, todo_id: 999_999_999 } });
    await close();

    const text = await readFile(path, 'utf8');
    expect(text).not.toContain(secretText);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const records = lines(text);
    expect(records.map((record) => [record.event, record.name, record.outcome])).toEqual([
      ['tools/call', 'basecamp_list_projects', 'ok'],
      ['tools/call', 'basecamp_search', 'ok'],
      ['tools/call', 'basecamp_get_todo', 'NOT_FOUND'],
    ]);
    expect(records[1]).toMatchObject({ user: null, args: { query: { text_length: secretText.length } } });
    expect(records[2]).toMatchObject({ args: { project_id: 1, todo_id: 999_999_999 } });

    const verified = await runProcess({
      command: process.execPath,
      args: [bin, 'audit', 'verify', '--sink', `file:${path}`],
      env: { HOME: home },
    });
    expect(verified.code, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, records: 3 });
    const tail = await runProcess({
      command: process.execPath,
      args: [bin, 'audit', 'tail', '--tool', 'basecamp_get_todo'],
      env: { HOME: home, MCP_AUDIT: `file:${path}` },
    });
    expect(tail.code, tail.stderr).toBe(0);
    expect(lines(tail.stdout)).toMatchObject([{ seq: 3, outcome: 'NOT_FOUND' }]);
  }, 60_000);

  it('HTTP with a bearer token: MCP_AUDIT=stdout writes the records on stdout', async () => {
    const token = 'audit-test-token-0123456789';
    const server = await startHttpServer(['--sandbox'], { MCP_HTTP_TOKEN: token, MCP_AUDIT: 'stdout' });
    try {
      const { client, close } = await connectHttp(server.url, { token });
      await client.callTool({ name: 'basecamp_list_projects', arguments: {} });
      await close();
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(server.stderr()).not.toContain(token);
    expect(lines(server.stdout())).toMatchObject([
      { seq: 1, event: 'tools/call', name: 'basecamp_list_projects', outcome: 'ok' },
    ]);
  }, 60_000);

  it('refuses what cannot work: stdout in stdio mode, redis without --auth oauth, an unknown sink', async () => {
    const start = (env: Record<string, string>) =>
      runProcess({ command: process.execPath, args: [bin, '--sandbox'], env });
    const stdout = await start({ MCP_AUDIT: 'stdout' });
    expect(stdout.code).not.toBe(0);
    expect(stdout.stdout).toBe('');
    expect(stdout.stderr).toContain('stdout carries the JSON-RPC messages');
    const redis = await start({ MCP_AUDIT: 'redis' });
    expect(redis.code).not.toBe(0);
    expect(redis.stderr).toContain('MCP_AUDIT=redis writes to the store of --auth oauth');
    const unknown = await start({ MCP_AUDIT: 'syslog' });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('MCP_AUDIT must be off, file:<path>, redis or stdout');
  }, 60_000);
});
