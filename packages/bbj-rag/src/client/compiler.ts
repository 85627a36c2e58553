import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CompilerSettings } from '../settings.js';

/** The name the snippet has in compiler output, instead of its temporary path. */
export const SNIPPET_NAME = 'snippet.bbj';
/** Compiler output beyond this (per stream) is cut; a syntax report is far shorter. */
export const MAX_OUTPUT_BYTES = 64 * 1024;

export type CompilerOutcome =
  /** The compiler ran, exited 0 and wrote nothing to stderr. */
  | { kind: 'valid'; stdout: string; exitCode: number; durationMs: number }
  /** The compiler reported problems on stderr. */
  | {
      kind: 'invalid';
      stderr: string;
      stdout: string;
      exitCode: number | null;
      truncated: boolean;
      durationMs: number;
    }
  /** The compiler did not finish in time and was killed with everything it started. */
  | { kind: 'timed_out'; timeoutSeconds: number }
  /** There is no runnable compiler at the configured path. */
  | { kind: 'not_found'; compilerPath: string; reason: 'missing' | 'not_executable' }
  /** The compiler ended abnormally without a report (a signal, or a non-zero exit with empty stderr). */
  | { kind: 'failed'; exitCode: number | null; signal: NodeJS.Signals | null; stdout: string };

/**
 * Runs `<compiler> -N <tempfile>` (syntax check only, no output file) without a shell. The
 * snippet lives in a private temporary directory that is removed whatever happens.
 */
export async function runCompiler(
  code: string,
  settings: CompilerSettings,
  signal?: AbortSignal,
): Promise<CompilerOutcome> {
  const directory = await mkdtemp(join(tmpdir(), 'bbj-mcp-'));
  const file = join(directory, SNIPPET_NAME);
  try {
    await writeFile(file, code, { encoding: 'utf8', mode: 0o600, flag: 'wx' });
    const outcome = await spawnCompiler(file, settings, signal);
    return hideTemporaryPath(outcome, file, directory);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

function spawnCompiler(
  file: string,
  settings: CompilerSettings,
  signal?: AbortSignal,
): Promise<CompilerOutcome> {
  return new Promise<CompilerOutcome>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const started = performance.now();
    // Detached: the compiler becomes a process group leader, so a timeout can stop the whole
    // group (bbjcpl is a wrapper script that starts a JVM).
    const child = spawn(settings.compilerPath, ['-N', file], {
      shell: false,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const stdout = new BoundedBuffer();
    const stderr = new BoundedBuffer();
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));

    let settled = false;
    const finish = (action: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      action();
    };
    const killGroup = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const stopAndWait = (then: () => void) => {
      killGroup();
      // The pipes may stay open if something escaped the group; do not wait on them.
      child.stdout.destroy();
      child.stderr.destroy();
      if (child.exitCode !== null || child.signalCode !== null) finish(then);
      else child.once('exit', () => finish(then));
    };
    const timer = setTimeout(() => {
      stopAndWait(() => resolve({ kind: 'timed_out', timeoutSeconds: settings.compilerTimeoutSeconds }));
    }, settings.compilerTimeoutSeconds * 1000);
    const onAbort = () => stopAndWait(() => reject(signal?.reason));
    signal?.addEventListener('abort', onAbort, { once: true });

    child.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'EACCES' || error.code === 'ENOTDIR') {
        finish(() =>
          resolve({
            kind: 'not_found',
            compilerPath: settings.compilerPath,
            reason: error.code === 'EACCES' ? 'not_executable' : 'missing',
          }),
        );
      } else {
        killGroup();
        finish(() => reject(error));
      }
    });
    child.once('close', (exitCode: number | null, exitSignal: NodeJS.Signals | null) => {
      finish(() => {
        const durationMs = Math.round(performance.now() - started);
        const errors = stderr.text().trim();
        if (errors !== '') {
          resolve({
            kind: 'invalid',
            stderr: errors,
            stdout: stdout.text().trim(),
            exitCode,
            truncated: stderr.truncated || stdout.truncated,
            durationMs,
          });
        } else if (exitCode === 0) {
          resolve({ kind: 'valid', stdout: stdout.text().trim(), exitCode, durationMs });
        } else {
          resolve({ kind: 'failed', exitCode, signal: exitSignal, stdout: stdout.text().trim() });
        }
      });
    });
  });
}

/** The temporary path means nothing to the caller and should not leave the machine. */
function hideTemporaryPath(outcome: CompilerOutcome, file: string, directory: string): CompilerOutcome {
  const clean = (text: string) => text.split(file).join(SNIPPET_NAME).split(directory).join('.');
  switch (outcome.kind) {
    case 'valid':
      return { ...outcome, stdout: clean(outcome.stdout) };
    case 'invalid':
      return { ...outcome, stderr: clean(outcome.stderr), stdout: clean(outcome.stdout) };
    case 'failed':
      return { ...outcome, stdout: clean(outcome.stdout) };
    default:
      return outcome;
  }
}

class BoundedBuffer {
  #chunks: Buffer[] = [];
  #size = 0;
  truncated = false;

  push(chunk: Buffer): void {
    const room = MAX_OUTPUT_BYTES - this.#size;
    if (room <= 0) {
      this.truncated = true;
      return;
    }
    const kept = chunk.byteLength > room ? chunk.subarray(0, room) : chunk;
    if (kept !== chunk) this.truncated = true;
    this.#chunks.push(kept);
    this.#size += kept.byteLength;
  }

  text(): string {
    return Buffer.concat(this.#chunks).toString('utf8');
  }
}
