import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh temporary directory, removed after the test. */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cf-test-'));
  made.push(dir);
  return dir;
}

/** The bytes and identity of a file, to prove an operation wrote nothing. */
export async function fingerprint(path: string): Promise<string> {
  const [text, info] = await Promise.all([readFile(path, 'utf8'), stat(path, { bigint: true })]);
  return `${info.ino}:${info.mtimeNs}:${text}`;
}

export const readJson = async (path: string): Promise<unknown> => JSON.parse(await readFile(path, 'utf8'));
