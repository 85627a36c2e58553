import { execFile } from 'node:child_process';
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import {
  InvalidInputError,
  LimitExceededError,
  NotFoundError,
  ToolNotEnabledError,
  toolRef,
  UpstreamError,
} from '@x/mcp-core';

export interface RepositoryContext {
  /** The directory that was inspected, relative to the working directory ("." for itself). */
  path: string;
  /** The repository's top-level directory, relative to the working directory when inside it. */
  root: string;
  branch: string | null;
  /** e.g. "detached at 1a2b3c4" when HEAD is not on a branch. */
  head: string;
  remote: string | null;
  staged: string[];
  modified: string[];
  untracked: string[];
  /** Tracked files under `path`, at most `maxFiles`. */
  files: string[];
  totalFiles: number;
  truncated: boolean;
}

const MAX_STATUS_ENTRIES = 500;
const GIT_TIMEOUT_MS = 15_000;
const MAX_OUTPUT_BYTES = 64 * 1024 * 1024;

/**
 * Resolves `requested` against `cwd` and refuses anything outside `cwd` once symlinks are
 * resolved, so a link inside the working directory cannot lead out of it.
 */
export async function resolveInside(cwd: string, requested: string | undefined): Promise<string> {
  const base = await workingDirectory(cwd);
  if (requested === undefined || requested.trim() === '') return base;
  if (requested.includes('\u0000')) throw new InvalidInputError('path must not contain NUL characters.');
  let target: string;
  try {
    target = await realpath(resolve(base, requested));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new NotFoundError(
        `Path does not exist: ${requested}. Pass a directory inside the working directory, or leave path out.`,
      );
    }
    throw new InvalidInputError(`Cannot resolve path ${requested} (${code ?? 'error'}).`);
  }
  const inside = relative(base, target);
  if (inside !== '' && (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside))) {
    throw new InvalidInputError(
      'path is outside the working directory (after resolving symlinks). Pass a directory inside it, or leave path out.',
    );
  }
  if (!(await stat(target)).isDirectory()) {
    throw new InvalidInputError(`path is not a directory: ${requested}.`);
  }
  return target;
}

async function workingDirectory(cwd: string): Promise<string> {
  try {
    return await realpath(cwd);
  } catch {
    throw new ToolNotEnabledError(
      "The server's working directory is not accessible. Start the server in the project directory.",
    );
  }
}

/** Branch, status and a bounded file list of the git work tree at `directory`. Runs git without a shell. */
export async function readRepository(
  cwd: string,
  requested: string | undefined,
  maxFiles: number,
  signal?: AbortSignal,
): Promise<RepositoryContext> {
  const directory = await resolveInside(cwd, requested);
  const base = await workingDirectory(cwd);
  const git = (args: string[]) => runGit(directory, args, signal);

  const inside = await git(['rev-parse', '--is-inside-work-tree']).catch((error: unknown) => {
    if (error instanceof GitExitError) return undefined;
    throw error;
  });
  if (inside?.trim() !== 'true') {
    throw new NotFoundError(
      `Not a git repository: ${requested?.trim() ? requested : 'the working directory'}. Call ${toolRef('get_repository_context')} with a path inside a git work tree.`,
    );
  }
  const [topLevel, branch, status, listing, remote] = await Promise.all([
    git(['rev-parse', '--show-toplevel']),
    git(['symbolic-ref', '--quiet', '--short', 'HEAD']).then(
      (name) => name.trim() || null,
      (error: unknown) => {
        if (error instanceof GitExitError) return null;
        throw error;
      },
    ),
    git(['status', '--porcelain=v1', '-z', '--untracked-files=normal', '--', '.']),
    git(['ls-files', '-z', '--cached', '--', '.']),
    git(['config', '--get', 'remote.origin.url']).then(
      (url) => withoutCredentials(url.trim()) || null,
      () => null,
    ),
  ]);
  const head = branch
    ? branch
    : await git(['rev-parse', '--short', 'HEAD']).then(
        (sha) => `detached at ${sha.trim()}`,
        () => 'no commits yet',
      );
  const changes = parseStatus(status);
  const files = listing.split('\0').filter(Boolean);
  const root = topLevel.trim();
  const relativeRoot = relative(base, root);
  return {
    path: relative(base, directory) || '.',
    root: relativeRoot === '' ? '.' : relativeRoot.startsWith('..') ? root : relativeRoot,
    branch,
    head,
    remote,
    staged: changes.staged.slice(0, MAX_STATUS_ENTRIES),
    modified: changes.modified.slice(0, MAX_STATUS_ENTRIES),
    untracked: changes.untracked.slice(0, MAX_STATUS_ENTRIES),
    files: files.slice(0, maxFiles),
    totalFiles: files.length,
    truncated: files.length > maxFiles,
  };
}

/** `git status --porcelain=v1 -z`: "XY path\0", renames followed by "orig\0". Paths are relative to the repository root. */
export function parseStatus(output: string): { staged: string[]; modified: string[]; untracked: string[] } {
  const staged: string[] = [];
  const modified: string[] = [];
  const untracked: string[] = [];
  const entries = output.split('\0');
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index] as string;
    if (entry.length < 4) continue;
    const x = entry[0];
    const y = entry[1];
    const path = entry.slice(3);
    if (x === '?' && y === '?') {
      untracked.push(path);
      continue;
    }
    if (x === '!') continue;
    if (x !== ' ') staged.push(path);
    if (y !== ' ') modified.push(path);
    // A rename or copy carries its original path as the next entry.
    if (x === 'R' || x === 'C') index++;
  }
  return { staged, modified, untracked };
}

/** Drops `user:token@` from an https remote so a credential never reaches a result. */
function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username || parsed.password) {
      parsed.username = '';
      parsed.password = '';
    }
    return parsed.toString();
  } catch {
    return url; // scp-like "git@host:owner/repo.git" carries no secret
  }
}

/** git ran and failed. An upstream error when it escapes (a broken repository, permissions). */
class GitExitError extends UpstreamError {
  constructor(
    readonly exitCode: number,
    command: string,
  ) {
    super(`git ${command} failed (exit ${exitCode}).`);
    this.name = 'GitExitError';
  }
}

function runGit(directory: string, args: string[], signal?: AbortSignal): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      'git',
      ['-C', directory, ...args],
      {
        encoding: 'utf8',
        timeout: GIT_TIMEOUT_MS,
        maxBuffer: MAX_OUTPUT_BYTES,
        windowsHide: true,
        ...(signal ? { signal } : {}),
        // No prompts, no locks taken by a read, stable output.
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' },
      },
      (error, stdout) => {
        if (!error) {
          resolvePromise(stdout);
          return;
        }
        const failure = error as NodeJS.ErrnoException & { code?: unknown; killed?: boolean };
        if (signal?.aborted) reject(signal.reason);
        else if (failure.code === 'ENOENT') {
          reject(
            new ToolNotEnabledError(
              `git is not installed or not on PATH; ${toolRef('get_repository_context')} needs it.`,
            ),
          );
        } else if (failure.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
          reject(
            new LimitExceededError('The repository listing is too large to read. Pass a narrower path.'),
          );
        } else if (typeof failure.code === 'number') reject(new GitExitError(failure.code, args[0] ?? ''));
        else if (failure.killed)
          reject(new UpstreamError(`git ${args[0]} did not finish within ${GIT_TIMEOUT_MS} ms.`));
        else reject(new UpstreamError(`git ${args[0]} failed.`));
      },
    );
  });
}
