// Shared by the package scripts (check-packages, server-json, bundle-report): find the
// publishable packages of the workspace, pack them the way `pnpm publish` does, and run
// commands with a time limit.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

const execFileAsync = promisify(execFile);

export const log = (text) => process.stderr.write(`${text}\n`);

/**
 * Runs a command and resolves with its output; rejects with the output attached when it
 * fails or outlives `timeoutMs`. `pnpm` and `npm` are found on PATH.
 */
export async function run(command, args, { cwd = ROOT, env, timeoutMs = 300_000 } = {}) {
  try {
    const { stdout, stderr } = await execFileAsync(command, args, {
      cwd,
      env: { ...process.env, ...env },
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { stdout, stderr };
  } catch (error) {
    const output = [error.stdout, error.stderr].filter(Boolean).join('\n').trim();
    const reason = error.killed ? `timed out after ${timeoutMs / 1000} s` : `exit code ${error.code}`;
    throw new Error(`${command} ${args.join(' ')} (in ${cwd}) failed: ${reason}\n${output}`);
  }
}

/** Like `run`, but the child's output streams to our stderr (long installs stay visible). */
export function runVisible(command, args, { cwd = ROOT, env, timeoutMs = 300_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', process.stderr, process.stderr],
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else
        reject(
          new Error(`${command} ${args.join(' ')} (in ${cwd}) failed: ${signal ?? `exit code ${code}`}`),
        );
    });
  });
}

/**
 * The packages we publish: every workspace package that is not private, found through pnpm
 * (so a new folder under packages/ is picked up without editing any list).
 */
export async function publishablePackages() {
  const { stdout } = await run('pnpm', ['ls', '--recursive', '--depth', '-1', '--json']);
  const found = [];
  for (const entry of JSON.parse(stdout)) {
    if (entry.private) continue;
    const manifest = JSON.parse(await readFile(join(entry.path, 'package.json'), 'utf8'));
    found.push({ name: manifest.name, dir: entry.path, folder: relative(ROOT, entry.path), manifest });
  }
  return found.sort((a, b) => a.folder.localeCompare(b.folder));
}

/**
 * Packages still being written (scripts/packages-pending.json): name -> reason. Their
 * failures are reported but do not fail a run; passing every check while listed does.
 */
export async function pendingPackages() {
  const listed = JSON.parse(await readFile(join(ROOT, 'scripts/packages-pending.json'), 'utf8'));
  return new Map(Object.entries(listed).filter(([name]) => !name.startsWith('$')));
}

/**
 * Splits failures (`{ pkg, text }`) into those that fail the run and those of pending
 * packages, and adds a failure for each pending package that no longer fails anything.
 */
export function applyPending(failures, checkedNames, pending) {
  const blocking = [];
  const tolerated = [];
  for (const failure of failures) (pending.has(failure.pkg) ? tolerated : blocking).push(failure);
  for (const name of checkedNames) {
    if (pending.has(name) && !failures.some((failure) => failure.pkg === name)) {
      blocking.push({ pkg: name, text: 'passes every check: remove it from scripts/packages-pending.json' });
    }
  }
  return { blocking, tolerated };
}

/** Keeps only the packages named in `only` (comma-separated names or folder names), when given. */
export function selectPackages(packages, only) {
  if (!only) return packages;
  const wanted = new Set(only.split(',').map((item) => item.trim()));
  const selected = packages.filter(
    (pkg) => wanted.has(pkg.name) || wanted.has(pkg.folder) || wanted.has(pkg.folder.split('/').pop()),
  );
  if (selected.length === 0) throw new Error(`--only ${only} matches no publishable package`);
  // A package installs only together with the sibling packages it depends on (unpublished yet).
  const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));
  const closure = new Set();
  const add = (pkg) => {
    if (closure.has(pkg)) return;
    closure.add(pkg);
    for (const name of Object.keys(pkg.manifest.dependencies ?? {}))
      if (byName.has(name)) add(byName.get(name));
  };
  for (const pkg of selected) add(pkg);
  return packages.filter((pkg) => closure.has(pkg));
}

/** Fails early when a package has not been built: packing would silently ship an empty dist. */
export async function assertBuilt(packages) {
  for (const pkg of packages) {
    const entries = await readdir(join(pkg.dir, 'dist')).catch(() => []);
    if (entries.length === 0) throw new Error(`${pkg.folder}/dist is empty: run pnpm build first`);
  }
}

/**
 * `pnpm pack` of each package into `destination`: the exact tarball `pnpm publish` uploads
 * (workspace: ranges replaced, `files` and `publishConfig` applied). Returns the tarball paths.
 */
export async function packAll(packages, destination) {
  for (const pkg of packages) {
    const { stdout } = await run('pnpm', ['pack', '--json', '--pack-destination', destination], {
      cwd: pkg.dir,
    });
    const result = JSON.parse(stdout);
    pkg.tarball = result.filename.startsWith('/') ? result.filename : join(destination, result.filename);
    pkg.packedFiles = result.files.map((file) => file.path);
  }
  return packages;
}

/** A fresh directory under the OS temp dir, outside the workspace. */
export async function makeTempDir(prefix) {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  if (!relative(ROOT, dir).startsWith('..')) throw new Error(`temp dir ${dir} is inside the workspace`);
  return dir;
}

export const removeDir = (dir) => rm(dir, { recursive: true, force: true, maxRetries: 3 });

/** The bins of a package as [name, path inside the package] pairs. */
export function binsOf(manifest) {
  if (!manifest.bin) return [];
  if (typeof manifest.bin === 'string') return [[manifest.name.split('/').pop(), manifest.bin]];
  return Object.entries(manifest.bin);
}

/** The library entry points of a package: every `exports` subpath except `./package.json`. */
export function entryPointsOf(manifest) {
  const exportsField = manifest.exports ?? {};
  const subpaths = typeof exportsField === 'string' ? ['.'] : Object.keys(exportsField);
  return subpaths
    .filter((subpath) => subpath !== './package.json' && !subpath.includes('*'))
    .map((subpath) => (subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`));
}
