import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditLog } from './audit-log.js';
import { ChainVerifier, GENESIS, openLine, sealLine } from './chain.js';
import { auditTarget } from './config.js';
import { parseSince, tailAudit, verifyAudit } from './read.js';
import { redactArguments } from './redact.js';
import { FileSink, fileSinkFiles } from './sinks.js';

const KEY = new Uint8Array(32).fill(7);
const OTHER_KEY = new Uint8Array(32).fill(8);

describe('redactArguments', () => {
  it('keeps keys, numbers, booleans, null and ids; replaces free text by its length and a keyed hash', () => {
    const redacted = redactArguments(
      {
        project_id: 1001,
        todolist_id: '2002',
        bucketId: 'abc-123',
        id: 'forge:42',
        ids: ['7', 'x-y'],
        person_ids: [1, 2],
        uuid: '123e4567-e89b-12d3-a456-426614174000',
        content: 'Fix the login page',
        title: 'Fix the login page',
        status: 'completed',
        due_on: '2026-12-01',
        completed: true,
        note: null,
        weight: 1.5,
        nested: { description: 'secret plans', count: 3 },
      },
      KEY,
    ) as Record<string, unknown>;
    expect(redacted.project_id).toBe(1001);
    expect(redacted.todolist_id).toBe('2002');
    expect(redacted.bucketId).toBe('abc-123');
    expect(redacted.id).toBe('forge:42');
    expect(redacted.ids).toEqual(['7', 'x-y']);
    expect(redacted.person_ids).toEqual([1, 2]);
    expect(redacted.uuid).toBe('123e4567-e89b-12d3-a456-426614174000');
    expect(redacted.completed).toBe(true);
    expect(redacted.note).toBeNull();
    expect(redacted.weight).toBe(1.5);
    const content = redacted.content as { text_length: number; text_hmac: string };
    expect(content.text_length).toBe('Fix the login page'.length);
    expect(content.text_hmac).toMatch(/^[A-Za-z0-9_-]{22}$/);
    // The same text gives the same hash (recognisable across records), not readable.
    expect(redacted.title).toEqual(content);
    expect(redacted.status).toEqual({ text_length: 9, text_hmac: expect.any(String) });
    expect(redacted.due_on).toEqual({ text_length: 10, text_hmac: expect.any(String) });
    expect((redacted.nested as Record<string, unknown>).count).toBe(3);
    expect(JSON.stringify(redacted)).not.toMatch(/login|secret plans|:"completed"|2026-12-01/);
  });

  it('hashes under the key: another key gives other hashes', () => {
    const a = redactArguments({ q: 'hello' }, KEY) as { q: { text_hmac: string } };
    const b = redactArguments({ q: 'hello' }, OTHER_KEY) as { q: { text_hmac: string } };
    expect(a.q.text_hmac).not.toBe(b.q.text_hmac);
  });

  it('does not keep a long or unusual value under an id field, nor an unusual key', () => {
    const secret = 'a-test-secret-of-at-least-32-bytes-0123456789';
    const redacted = redactArguments(
      {
        project_id: secret,
        account_id: 'has spaces in it',
        [secret]: 1,
        'key with "quotes"': 2,
        deep: { a: { b: { c: { d: { e: { f: 'x' } } } } } },
        many: Array.from({ length: 60 }, (_, index) => index),
      },
      KEY,
    ) as Record<string, unknown>;
    const text = JSON.stringify(redacted);
    expect(text).not.toContain(secret);
    expect(text).not.toContain('has spaces');
    expect(text).not.toContain('quotes');
    expect(redacted.project_id).toEqual({ text_length: secret.length, text_hmac: expect.any(String) });
    expect(Object.keys(redacted).filter((key) => key.startsWith('key_'))).toHaveLength(2);
    expect(text).toContain('"omitted_depth":true');
    expect((redacted.many as unknown[]).at(-1)).toEqual({ omitted_items: 10 });
  });
});

describe('the hash chain', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'audit-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const entries = (count: number, from = 0) =>
    Array.from({ length: count }, (_, index) => ({
      time: new Date(Date.UTC(2026, 10, 28, 9, 0, from + index)).toISOString(),
      event: 'tools/call',
      outcome: 'ok',
      user: {
        id: `basecamp:${(from + index) % 2 ? 101 : 202}`,
        email: `${(from + index) % 2 ? 'alice' : 'bob'}@example.com`,
      },
      name: (from + index) % 3 ? 'basecamp_list_projects' : 'basecamp_create_todo',
    }));

  async function written(count: number, options = {}) {
    const path = join(dir, 'audit.jsonl');
    const sink = new FileSink(path, options);
    sink.write(entries(count));
    await sink.close();
    return path;
  }

  it('chains from the genesis; a file written in several runs continues the chain', async () => {
    const path = join(dir, 'audit.jsonl');
    let sink = new FileSink(path);
    sink.write(entries(3));
    await sink.close();
    sink = new FileSink(path);
    sink.write(entries(2, 3));
    await sink.close();
    const lines = (await readFile(path, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(5);
    const first = openLine(lines[0] as string);
    expect(first).toMatchObject({ ok: true, seq: 1, prev: GENESIS });
    expect(await verifyAudit({ kind: 'file', path })).toMatchObject({ ok: true, records: 5, firstSeq: 1 });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });

  it('detects an edited record and names it', async () => {
    const path = await written(6);
    const lines = (await readFile(path, 'utf8')).split('\n');
    lines[3] = (lines[3] as string).replace('"outcome":"ok"', '"outcome":"INTERNAL_ERROR"');
    await writeFile(path, lines.join('\n'));
    const report = await verifyAudit({ kind: 'file', path });
    expect(report.ok).toBe(false);
    expect(report.bad).toMatchObject({ source: 'audit.jsonl', position: 'line 4' });
    expect(report.bad?.reason).toMatch(/edited/);
    expect(report.records).toBe(3);
  });

  it('detects an edited record whose hash was recomputed: the next one no longer follows', async () => {
    const path = await written(6);
    const lines = (await readFile(path, 'utf8')).split('\n');
    const opened = openLine(lines[2] as string);
    if (!opened.ok) throw new Error('unreadable');
    const { hash: _hash, seq: _seq, prev: _prev, ...record } = opened.record;
    const forged = sealLine(
      { ...record, outcome: 'PERMISSION_DENIED' },
      { seq: opened.seq - 1, hash: opened.prev },
    );
    lines[2] = forged.line;
    await writeFile(path, lines.join('\n'));
    const report = await verifyAudit({ kind: 'file', path });
    expect(report.bad).toMatchObject({ position: 'line 4', seq: 4 });
    expect(report.bad?.reason).toMatch(/prev is not the hash/);
  });

  it('detects a deleted record', async () => {
    const path = await written(6);
    const lines = (await readFile(path, 'utf8')).split('\n');
    lines.splice(2, 1);
    await writeFile(path, lines.join('\n'));
    const report = await verifyAudit({ kind: 'file', path });
    expect(report.bad).toMatchObject({ position: 'line 3', seq: 4 });
    expect(report.bad?.reason).toMatch(/records 3\.\.3 are missing/);
  });

  it('detects an inserted record (a copy of another, or a new one chained after the record before)', async () => {
    const path = await written(6);
    const lines = (await readFile(path, 'utf8')).split('\n');
    const copy = [...lines];
    copy.splice(4, 0, lines[1] as string);
    await writeFile(path, copy.join('\n'));
    let report = await verifyAudit({ kind: 'file', path });
    expect(report.bad).toMatchObject({ position: 'line 5', seq: 2 });
    expect(report.bad?.reason).toMatch(/inserted or reordered/);

    const before = openLine(lines[2] as string);
    if (!before.ok) throw new Error('unreadable');
    const inserted = sealLine({ event: 'tools/call', outcome: 'ok' }, { seq: before.seq, hash: before.hash });
    const withNew = [...lines];
    withNew.splice(3, 0, inserted.line);
    await writeFile(path, withNew.join('\n'));
    report = await verifyAudit({ kind: 'file', path });
    // The inserted one chains; the record after it no longer does.
    expect(report.bad).toMatchObject({ position: 'line 5', seq: 4 });
  });

  it('rotates by size, 0600, and verifies across the rotated files; a missing middle file breaks the chain', async () => {
    const path = join(dir, 'audit.jsonl');
    const sink = new FileSink(path, { maxBytes: 1200, keep: 3 });
    for (let index = 0; index < 20; index++) sink.write(entries(2, index * 2));
    await sink.close();
    const files = fileSinkFiles(path);
    expect(files.map((file) => file.slice(dir.length + 1))).toEqual([
      'audit.jsonl.3',
      'audit.jsonl.2',
      'audit.jsonl.1',
      'audit.jsonl',
    ]);
    for (const file of files) {
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect((await stat(file)).size).toBeLessThanOrEqual(1200);
    }
    const report = await verifyAudit({ kind: 'file', path });
    // The oldest files were deleted past `keep`: the chain starts after them, and holds to the end.
    expect(report.ok).toBe(true);
    expect(report.firstSeq).toBeGreaterThan(1);
    expect(report.last?.seq).toBe(40);
    expect(report.records).toBe(40 - (report.firstSeq as number) + 1);

    await rm(`${path}.2`);
    await writeFile(`${path}.2`, '');
    const broken = await verifyAudit({ kind: 'file', path });
    expect(broken.bad).toMatchObject({ source: 'audit.jsonl.1', position: 'line 1' });
    expect(broken.bad?.reason).toMatch(/missing/);
  });

  it('a server started just after a rotation (its file still empty) continues from the rotated file', async () => {
    const path = join(dir, 'audit.jsonl');
    const sink = new FileSink(path);
    sink.write(entries(3));
    await sink.close();
    await rename(path, `${path}.1`);
    await writeFile(path, '');
    const next = new FileSink(path);
    next.write(entries(1, 3));
    await next.close();
    const report = await verifyAudit({ kind: 'file', path });
    expect(report).toMatchObject({ ok: true, firstSeq: 1, records: 4 });
  });

  it('several writers on one file (two servers, an admin command) keep one chain, rotations included', async () => {
    const path = join(dir, 'audit.jsonl');
    const writers = [
      new FileSink(path, { maxBytes: 2000, keep: 50 }),
      new FileSink(path, { maxBytes: 2000, keep: 50 }),
      new FileSink(path, { maxBytes: 2000, keep: 50 }),
    ];
    let written = 0;
    for (let round = 0; round < 30; round++) {
      const writer = writers[(round * 7) % 3] as FileSink;
      await writer.write(entries(1 + (round % 4), written));
      written += 1 + (round % 4);
    }
    for (const writer of writers) await writer.close();
    expect(fileSinkFiles(path).length).toBeGreaterThan(2);
    expect(await verifyAudit({ kind: 'file', path })).toMatchObject({
      ok: true,
      records: written,
      firstSeq: 1,
    });
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('waits while another process holds the lock, then writes after it; takes over the lock of a process that is gone', async () => {
    const path = join(dir, 'audit.jsonl');
    const sink = new FileSink(path);
    await sink.write(entries(1));
    // A running process holds the lock: the write waits for its release.
    const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      await writeFile(`${path}.lock`, String(holder.pid));
      let done = false;
      const pending = Promise.resolve(sink.write(entries(1, 1))).then(() => {
        done = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(done).toBe(false);
      await rm(`${path}.lock`);
      await pending;
    } finally {
      holder.kill();
    }
    // The lock of a process that no longer runs is taken over at once.
    const gone = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await new Promise((resolve) => gone.once('exit', resolve));
    await writeFile(`${path}.lock`, String(gone.pid));
    const result = sink.write(entries(1, 2));
    expect(result).toBeUndefined(); // synchronous: no wait
    await sink.close();
    expect(await verifyAudit({ kind: 'file', path })).toMatchObject({ ok: true, records: 3 });
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('ChainVerifier refuses a first record that claims seq 1 but does not start the chain', () => {
    const verifier = new ChainVerifier();
    const sealed = sealLine({ event: 'x' }, { seq: 0, hash: 'f'.repeat(64) });
    expect(verifier.add(sealed.line, { source: 's', position: '1' })).toBe(false);
  });

  it('tail filters by user (id or email), time, tool and count', async () => {
    const path = await written(12);
    const target = { kind: 'file' as const, path };
    const all = await tailAudit(target, { limit: 100 });
    expect(all).toHaveLength(12);
    const alice = await tailAudit(target, { user: 'ALICE@example.com', limit: 100 });
    expect(alice.map((record) => record.seq)).toEqual([2, 4, 6, 8, 10, 12]);
    expect(await tailAudit(target, { user: 'basecamp:202', limit: 2 })).toMatchObject([
      { seq: 9 },
      { seq: 11 },
    ]);
    const since = await tailAudit(target, { since: new Date(Date.UTC(2026, 10, 28, 9, 0, 9)), limit: 100 });
    expect(since.map((record) => record.seq)).toEqual([10, 11, 12]);
    const creates = await tailAudit(target, { tool: 'basecamp_create_todo', limit: 100 });
    expect(creates.map((record) => record.seq)).toEqual([1, 4, 7, 10]);
    expect(await tailAudit(target, { limit: 3 })).toMatchObject([{ seq: 10 }, { seq: 11 }, { seq: 12 }]);
  });

  it('parseSince reads times and durations, and names what it accepts', () => {
    const now = Date.UTC(2026, 10, 28, 12);
    expect(parseSince('15m', now).getTime()).toBe(now - 15 * 60_000);
    expect(parseSince('2d', now).getTime()).toBe(now - 2 * 86_400_000);
    expect(parseSince('2026-11-28T09:00:00Z').toISOString()).toBe('2026-11-28T09:00:00.000Z');
    expect(() => parseSince('yesterday')).toThrow(/duration \(15m, 2h, 7d\)/);
  });
});

describe('auditTarget (MCP_AUDIT)', () => {
  it('defaults to a file next to a sqlite store, the stream on a redis store, off in memory', () => {
    expect(auditTarget(undefined, 'sqlite:/var/lib/x/store.db')).toEqual({
      kind: 'file',
      path: '/var/lib/x/audit.jsonl',
    });
    expect(auditTarget('', 'sqlite:///var/lib/x/store.db')).toEqual({
      kind: 'file',
      path: '/var/lib/x/audit.jsonl',
    });
    expect(auditTarget(undefined, 'redis://127.0.0.1:6379')).toEqual({
      kind: 'redis',
      url: 'redis://127.0.0.1:6379',
    });
    expect(auditTarget(undefined, 'memory:')).toEqual({ kind: 'off' });
    expect(auditTarget('off', 'redis://h:1')).toEqual({ kind: 'off' });
    expect(auditTarget('stdout', 'memory:')).toEqual({ kind: 'stdout' });
    expect(auditTarget('file:/tmp/a.jsonl', 'memory:')).toEqual({ kind: 'file', path: '/tmp/a.jsonl' });
  });

  it('refuses what it does not know, and redis without a redis store', () => {
    expect(() => auditTarget('syslog', 'memory:')).toThrow(/off, file:<path>, redis or stdout; got syslog/);
    expect(() => auditTarget('file:', 'memory:')).toThrow(/MCP_AUDIT must be/);
    expect(() => auditTarget('redis', 'sqlite:/x/store.db')).toThrow(/needs a redis:\/\/ store/);
  });
});

describe('AuditLog', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'audit-log-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes nothing per call: records go out in batches, all of them by close()', async () => {
    const path = join(dir, 'audit.jsonl');
    const audit = new AuditLog({ sink: new FileSink(path), argumentKey: KEY, flushIntervalMs: 60_000 });
    for (let index = 0; index < 50; index++) {
      const scope = audit.observer.operation?.({
        kind: 'tool',
        name: 'basecamp_create_todo',
        request: {
          transport: 'http',
          auth: { clientId: 'client-1', scopes: [], extra: { userId: 'basecamp:101' } },
        },
        arguments: { project_id: 1, content: `todo ${index}` },
      });
      scope?.end({ outcome: 'ok', durationMs: 1 });
    }
    expect((await stat(path)).size).toBe(0);
    await audit.close();
    const report = await verifyAudit({ kind: 'file', path });
    expect(report).toMatchObject({ ok: true, records: 50 });
    const [record] = await tailAudit({ kind: 'file', path }, { limit: 1 });
    expect(record).toMatchObject({
      event: 'tools/call',
      outcome: 'ok',
      user: { id: 'basecamp:101', email: null },
      client: { id: 'client-1', name: null },
      name: 'basecamp_create_todo',
      upstream: { requests: 0 },
      args: { project_id: 1, content: { text_length: 'todo 49'.length } },
    });
  });

  it('counts the upstream requests made inside a call, per service, and marks refusals as denials', async () => {
    const path = join(dir, 'audit.jsonl');
    const audit = new AuditLog({ sink: new FileSink(path), argumentKey: KEY });
    const request = { transport: 'http' as const };
    const call = audit.observer.operation?.({ kind: 'tool', name: 'a', request, arguments: {} });
    await call?.run?.(async () => {
      await Promise.resolve();
      audit.observer.upstreamRequest?.({ service: 'Basecamp', method: 'GET', origin: 'https://x' });
      audit.observer.upstreamRequest?.({ service: 'Basecamp', method: 'POST', origin: 'https://x' });
      audit.observer.upstreamRequest?.({ service: 'Forge', method: 'GET', origin: 'https://y' });
    });
    call?.end({ outcome: 'PERMISSION_DENIED', durationMs: 2 });
    // Outside any call: counted nowhere.
    audit.observer.upstreamRequest?.({ service: 'Basecamp', method: 'GET', origin: 'https://x' });
    audit.observer
      .operation?.({ kind: 'tool', name: 'b', request })
      ?.end({ outcome: 'PERMISSION_DENIED', durationMs: 0 });
    audit.observer
      .operation?.({ kind: 'prompt', name: 'p', request, arguments: {} })
      ?.end({ outcome: 'ok', durationMs: 0 });
    await audit.close();
    const records = await tailAudit({ kind: 'file', path });
    expect(records).toMatchObject([
      {
        name: 'a',
        outcome: 'PERMISSION_DENIED',
        upstream: { requests: 3, services: { Basecamp: 2, Forge: 1 } },
      },
      { name: 'b', outcome: 'PERMISSION_DENIED', denied: true, upstream: { requests: 0 } },
      { name: 'p', event: 'prompts/get', outcome: 'ok' },
    ]);
    expect(records[0]).not.toHaveProperty('denied');
    expect(records[1]).not.toHaveProperty('args');
  });

  it('looks emails and client names up once per batch and caches them', async () => {
    const path = join(dir, 'audit.jsonl');
    const lookups: string[] = [];
    const audit = new AuditLog({
      sink: new FileSink(path),
      argumentKey: KEY,
      directory: {
        userEmail: async (id) => {
          lookups.push(id);
          return id === 'basecamp:101' ? 'alice@example.com' : undefined;
        },
        clientName: async (id) => {
          lookups.push(id);
          return 'Claude';
        },
      },
    });
    for (let round = 0; round < 3; round++) {
      for (let index = 0; index < 5; index++)
        audit.record({ event: 'sign-in', outcome: 'ok', userId: 'basecamp:101', clientId: 'c1' });
      await audit.flush();
    }
    await audit.close();
    expect(lookups.sort()).toEqual(['basecamp:101', 'c1']);
    const records = await tailAudit({ kind: 'file', path }, { limit: 100 });
    expect(records).toHaveLength(15);
    expect(records[14]).toMatchObject({ user: { email: 'alice@example.com' }, client: { name: 'Claude' } });
  });

  it('keeps records while the sink fails and writes them, in order, once it works again', async () => {
    const path = join(dir, 'audit.jsonl');
    const file = new FileSink(path);
    let failing = true;
    const sink = {
      name: 'flaky',
      synchronous: true,
      write: (entries: readonly object[]) => {
        if (failing) throw new Error('disk full');
        file.write(entries);
      },
      close: () => file.close(),
    };
    const audit = new AuditLog({
      sink,
      argumentKey: KEY,
      logger: (await import('@x/mcp-core')).createLogger('t', { level: 'silent' }),
    });
    audit.record({ event: 'revoke', outcome: 'ok', userId: 'u1' });
    await audit.flush();
    audit.record({ event: 'revoke', outcome: 'ok', userId: 'u2' });
    failing = false;
    await audit.close();
    const records = await tailAudit({ kind: 'file', path });
    expect(records.map((record) => (record.user as { id: string }).id)).toEqual(['u1', 'u2']);
  });
});
