import { execFile } from 'node:child_process';
import { realpath, stat } from 'node:fs/promises';
import { devNull } from 'node:os';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import {
  InvalidInputError,
  LimitExceededError,
  NotFoundError,
  PermissionDeniedError,
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
  const shown = requested?.trim() ? requested : 'the working directory';

  const inside = await runGit(directory, ['rev-parse', '--is-inside-work-tree'], [], signal).catch(
    (error: unknown) => {
      if (error instanceof GitExitError && error.dubiousOwnership) {
        throw new PermissionDeniedError(
          `git refuses to read ${shown}: the repository belongs to another user, and its own settings could run programs. ` +
            'If you trust it, the user running this server can allow it with `git config --global --add safe.directory <repository root>`.',
        );
      }
      if (error instanceof GitExitError) return undefined;
      throw error;
    },
  );
  if (inside?.trim() !== 'true') {
    throw new NotFoundError(
      `Not a git repository: ${shown}. Call ${toolRef('get_repository_context')} with a path inside a git work tree.`,
    );
  }
  const overrides = await repositoryFilterOverrides(directory, signal);
  const git = (args: string[]) => runGit(directory, args, overrides, signal);
  const [topLevel, branch, status, listing, remote] = await Promise.all([
    git(['rev-parse', '--show-toplevel']),
    git(['symbolic-ref', '--quiet', '--short', 'HEAD']).then(
      (name) => name.trim() || null,
      (error: unknown) => {
        if (error instanceof GitExitError) return null;
        throw error;
      },
    ),
    // `dirty`: a submodule's checked-out commit is compared in-process; looking inside its work
    // tree would run another git with the submodule's own (unchecked) settings.
    git([
      'status',
      '--porcelain=v1',
      '-z',
      '--untracked-files=normal',
      '--ignore-submodules=dirty',
      '--',
      '.',
    ]),
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
    /** git refused a repository owned by another user (its `safe.directory` check). */
    readonly dubiousOwnership: boolean,
  ) {
    super(`git ${command} failed (exit ${exitCode}).`);
    this.name = 'GitExitError';
  }
}

/**
 * Settings under which git never starts another program while we read a repository, whatever
 * the repository's own `.git/config` says (command-line settings win over every config file):
 * - `core.fsmonitor`: a command run by `status` and `ls-files` to ask for changed files. Empty
 *   means off on every git version (`false` would be run as a command before git 2.36);
 * - `core.hooksPath`: no hooks (`status` may run `post-index-change` when it refreshes the index);
 * - `credential.helper`, `protocol.allow`: nothing of ours talks to a remote; if something did,
 *   it would ask no helper and use no transport (`ext::` runs commands);
 * - `safe.bareRepository=explicit`: a bare repository planted inside the work tree is not
 *   opened implicitly (git >= 2.38; older versions ignore it).
 * Pager, editor, askpass and external diff are switched off through the environment (see
 * `gitEnvironment`); the commands we run (rev-parse, symbolic-ref, status, ls-files, config) do not
 * diff file contents, so no textconv or diff driver is reached. Filter drivers are handled by
 * `repositoryFilterOverrides`.
 */
const SAFE_SETTINGS = [
  'core.fsmonitor=',
  `core.hooksPath=${devNull}`,
  'credential.helper=',
  'protocol.allow=never',
  'safe.bareRepository=explicit',
];

/**
 * `status` runs a file's clean filter (`filter.<driver>.clean` / `.process`, chosen by
 * `.gitattributes`) to compare a file whose timestamps changed. A driver defined in the
 * repository's own config (scope `local` or `worktree`) is the repository's code: switched off.
 * Drivers from the user's global or system config (Git LFS, say) stay, as in the user's own git.
 */
async function repositoryFilterOverrides(directory: string, signal?: AbortSignal): Promise<string[]> {
  const names = new Set<string>();
  let listing: string[];
  try {
    listing = (
      await runGit(directory, ['config', '--list', '--show-scope', '--name-only', '-z'], [], signal)
    ).split('\0');
  } catch (error) {
    if (!(error instanceof GitExitError)) throw error;
    // git < 2.26 has no --show-scope: switch off every filter driver, wherever it is defined.
    const all = await runGit(directory, ['config', '--list', '--name-only', '-z'], [], signal);
    listing = all.split('\0').flatMap((name) => ['local', name]);
  }
  for (let index = 0; index + 1 < listing.length; index += 2) {
    const scope = listing[index];
    const name = listing[index + 1] as string;
    const driver = /^filter\.(.+)\.(?:clean|smudge|process)$/is.exec(name)?.[1];
    if (driver !== undefined && (scope === 'local' || scope === 'worktree')) names.add(driver);
  }
  const overrides: string[] = [];
  for (const driver of names) {
    // `-c name=value` splits at the first "=": a driver name with one cannot be addressed.
    if (driver.includes('=') || /[\n\r\0]/.test(driver)) {
      throw new PermissionDeniedError(
        `The repository's git config defines a filter driver named ${JSON.stringify(driver)} that cannot be switched off safely, so it is not read. Inspect it with git yourself.`,
      );
    }
    for (const key of ['clean', 'smudge', 'process']) overrides.push(`filter.${driver}.${key}=`);
  }
  return overrides;
}

/**
 * The environment git runs with: ours, without any `GIT_*` variable that could point git at
 * another repository, index or config (`GIT_DIR`, `GIT_CONFIG_PARAMETERS`, `GIT_EXTERNAL_DIFF`,
 * ...), plus no prompts, pager, editor or askpass, no optional locks (a read never writes the
 * index) and stable output. `GIT_EXEC_PATH` is kept: it only says where git itself is installed.
 * The system and global config stay in effect: they belong to the machine and the user, not to the
 * repository being read, and hold settings such as `safe.directory` and the user's excludes file.
 */
function gitEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    const upper = name.toUpperCase();
    if (!upper.startsWith('GIT_') || upper === 'GIT_EXEC_PATH') env[name] = value;
  }
  return {
    ...env,
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    GIT_EDITOR: ':',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    GIT_PROTOCOL_FROM_USER: '0',
    LC_ALL: 'C',
  };
}

function runGit(
  directory: string,
  args: string[],
  overrides: readonly string[],
  signal?: AbortSignal,
): Promise<string> {
  const settings = [...SAFE_SETTINGS, ...overrides].flatMap((setting) => ['-c', setting]);
  return new Promise((resolvePromise, reject) => {
    execFile(
      'git',
      ['--no-pager', ...settings, '-C', directory, ...args],
      {
        encoding: 'utf8',
        timeout: GIT_TIMEOUT_MS,
        maxBuffer: MAX_OUTPUT_BYTES,
        windowsHide: true,
        ...(signal ? { signal } : {}),
        env: gitEnvironment(),
      },
      (error, stdout, stderr) => {
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
        } else if (typeof failure.code === 'number') {
          const text = String(stderr);
          const dubious = text.includes('dubious ownership') || text.includes('unsafe repository');
          reject(new GitExitError(failure.code, args[0] ?? '', dubious));
        } else if (failure.killed)
          reject(new UpstreamError(`git ${args[0]} did not finish within ${GIT_TIMEOUT_MS} ms.`));
        else reject(new UpstreamError(`git ${args[0]} failed.`));
      },
    );
  });
}
