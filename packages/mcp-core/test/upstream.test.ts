import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closedPort } from '../src/testing/index.js';
import { networkErrorCode, parseRetryAfter, sleep, writePrivateFile } from '../src/upstream/index.js';

describe('parseRetryAfter', () => {
  it('reads delta-seconds and HTTP dates, and nothing else', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 1.5 ', now)).toBe(1500);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:00:07 GMT', now)).toBe(7000);
    expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

describe('sleep', () => {
  it('waits, and rejects with the reason when aborted', async () => {
    await expect(sleep(1)).resolves.toBeUndefined();
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
    await expect(sleep(10, AbortSignal.abort(new Error('already')))).rejects.toThrow('already');
  });
});

describe('networkErrorCode', () => {
  it('finds the system code of a failed fetch', async () => {
    const error = await fetch(`http://127.0.0.1:${await closedPort()}/`).catch((caught: unknown) => caught);
    expect(networkErrorCode(error)).toBe('ECONNREFUSED');
    expect(networkErrorCode(new Error('plain'))).toBeUndefined();
    expect(networkErrorCode({ code: 'not a code' })).toBeUndefined();
  });
});

describe('writePrivateFile', () => {
  it('writes atomically with mode 0600, creating the directory 0700, and replaces an old file', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'private-')), 'nested');
    const file = join(dir, 'token.json');
    await writePrivateFile(file, '{"a":1}\n');
    expect(await readFile(file, 'utf8')).toBe('{"a":1}\n');
    if (process.platform !== 'win32') {
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
    }
    await writeFile(file, 'old', { mode: 0o644 });
    await writePrivateFile(file, 'new');
    expect(await readFile(file, 'utf8')).toBe('new');
    if (process.platform !== 'win32') expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['token.json']);
  });
});
