import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
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

const POLLER = `
const { readFileSync } = require('node:fs');
const { workerData, parentPort } = require('node:worker_threads');
const stop = new Int32Array(workerData.stop);
let reads = 0;
const bad = [];
while (Atomics.load(stop, 0) === 0) {
  let text;
  try {
    text = readFileSync(workerData.path, 'utf8');
  } catch (error) {
    if (error.code === 'ENOENT') continue;
    throw error;
  }
  reads++;
  try {
    JSON.parse(text);
  } catch {
    bad.push(text.slice(0, 60));
  }
}
parentPort.postMessage({ reads, bad });
`;

/**
 * Reads `path` in a tight loop on another thread until stopped, as a program polling the file
 * would: every read that finds the file must find complete JSON. `bad` holds the reads that did not.
 */
export function pollJson(path: string): { stop(): Promise<{ reads: number; bad: string[] }> } {
  const stop = new SharedArrayBuffer(4);
  const worker = new Worker(POLLER, { eval: true, workerData: { path, stop } });
  const result = new Promise<{ reads: number; bad: string[] }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    stop: async () => {
      Atomics.store(new Int32Array(stop), 0, 1);
      try {
        return await result;
      } finally {
        await worker.terminate();
      }
    },
  };
}
