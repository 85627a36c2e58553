// The built server with its default store (a sqlite: file) writes the audit log next to it,
// 0600, everything written by a clean shutdown; `x-mcp-server audit verify | tail` read it with
// the same --store; nothing goes to stdout.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FakeBasecamp, startFakeBasecamp } from '@x/mcp-basecamp/testing';
import { closedPort, runProcess, startHttpBin } from '@x/mcp-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, BOB, oauthBinEnv, SECRET, signIn } from '../oauth/fixture.js';

const bin = fileURLToPath(new URL('../../../../apps/server/dist/bin.js', import.meta.url));

let fake: FakeBasecamp;
beforeAll(async () => {
  if (!existsSync(bin)) throw new Error(`Build apps/server first (pnpm build): ${bin} is missing.`);
  fake = await startFakeBasecamp();
});
afterAll(async () => {
  await fake?.close();
});

describe('x-mcp-server --auth oauth with a sqlite: store', () => {
  it('writes audit.jsonl next to the store; audit verify and tail read it', async () => {
    const home = await mkdtemp(join(tmpdir(), 'audit-bin-'));
    const store = `sqlite:${join(home, 'state', 'store.db')}`;
    const port = await closedPort();
    const server = await startHttpBin({
      command: process.execPath,
      args: [bin, '--http', '--port', String(port), '--auth', 'oauth', '--providers', 'basecamp'],
      env: oauthBinEnv({ home, publicUrl: `http://127.0.0.1:${port}`, store, fake }),
    });
    const path = join(home, 'state', 'audit.jsonl');
    try {
      expect(server.stderr()).toContain(`audit file:${path}`);
      const alice = await signIn({ url: server.url, fake }, ALICE);
      await alice.client.callTool({ name: 'basecamp_list_projects', arguments: {} });
      await alice.client.callTool({ name: 'basecamp_search', arguments: { query: `q ${SECRET}` } });
      await alice.close();
      // An admin command writes into the same file while the server runs; the server's next
      // record chains after it.
      const revoked = await runProcess({
        command: process.execPath,
        args: [bin, 'users', 'revoke', 'alice@example.com', '--store', store],
        env: oauthBinEnv({ home, publicUrl: `http://127.0.0.1:${port}`, store, fake }),
      });
      expect(revoked.code, revoked.stderr).toBe(0);
      const bob = await signIn({ url: server.url, fake }, BOB);
      await bob.client.callTool({ name: 'basecamp_list_projects', arguments: {} });
      await bob.close();
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(server.stdout()).toBe('');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const text = await readFile(path, 'utf8');
    expect(text).not.toContain(SECRET);
    // Alice's sign-in and two calls, the revocation, Bob's sign-in and call: one chain.
    const records = text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(records.map((record) => [record.event, record.user?.email])).toEqual([
      ['sign-in', 'alice@example.com'],
      ['tools/call', 'alice@example.com'],
      ['tools/call', 'alice@example.com'],
      ['revoke', 'alice@example.com'],
      ['sign-in', 'bob@example.com'],
      ['tools/call', 'bob@example.com'],
    ]);
    expect(records[3]).toMatchObject({
      outcome: 'ok',
      user: { id: 'basecamp:101' },
      reason: 'admin command: users revoke',
    });

    const run = (...args: string[]) =>
      runProcess({
        command: process.execPath,
        args: [bin, 'audit', ...args, '--store', store],
        env: { HOME: home },
      });
    const verified = await run('verify');
    expect(verified.code, verified.stderr).toBe(0);
    expect(JSON.parse(verified.stdout)).toMatchObject({
      ok: true,
      records: 6,
      firstSeq: 1,
      last: { seq: 6 },
    });
    const tail = await run('tail', '--tool', 'basecamp_search', '--user', 'basecamp:101', '--since', '1h');
    expect(tail.code, tail.stderr).toBe(0);
    expect(JSON.parse(tail.stdout)).toMatchObject({
      seq: 3,
      event: 'tools/call',
      user: { email: 'alice@example.com' },
      args: { query: { text_length: `q ${SECRET}`.length } },
    });
    // The bin bundles its own copy of the core and @x/mcp-hosted imports another: the record
    // still carries the request's id (one request context per process, not per copy).
    expect(JSON.parse(tail.stdout).request_id).toMatch(/^[0-9a-f-]{36}$/);

    await writeFile(path, text.replace('"outcome":"ok"', '"outcome":"NOT_FOUND"'));
    const edited = await run('verify');
    expect(edited.code).toBe(1);
    expect(edited.stderr).toMatch(/breaks at audit\.jsonl line 1 \(seq|breaks at audit\.jsonl line 1:/);

    const usage = await run('verify', '--tool', 'x');
    expect(usage.code).toBe(2);
    const missing = await run('verify', '--sink', `file:${join(home, 'nowhere.jsonl')}`);
    expect(missing).toMatchObject({ code: 2 });
    expect(missing.stderr).toContain('No audit log at');
    const bad = await run('tail', '--since', 'yesterday');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--since must be a time');
  }, 90_000);
});
