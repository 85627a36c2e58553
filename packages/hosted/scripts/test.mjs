#!/usr/bin/env node
// Runs this package's tests on Node 22 (the package needs >= 22.12; the rest of the
// repository runs on the machine's Node 20 in the root `vitest run`).
// When the current Node is already >= 22.12 it is used; otherwise the pinned Node 22 binary
// from the npm registry package node-<platform>-<arch> is installed once into
// node_modules/.cache/x-node22 and used. Extra arguments go to vitest.
//
//   node packages/hosted/scripts/test.mjs [vitest args]      (pnpm test:hosted)
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const NODE22_VERSION = '22.23.3';
const PACKAGE = dirname(dirname(fileURLToPath(import.meta.url)));
const ROOT = join(PACKAGE, '../..');
const CACHE = join(ROOT, 'node_modules/.cache/x-node22');

function atLeast(version, [major, minor]) {
  const [a, b] = version.split('.').map(Number);
  return a > major || (a === major && b >= minor);
}

function node22() {
  if (atLeast(process.versions.node, [22, 12])) return process.execPath;
  const name = `node-${process.platform}-${process.arch}`;
  const manifest = join(CACHE, 'node_modules', name, 'package.json');
  const binary = join(CACHE, 'node_modules', name, 'bin/node');
  const current =
    existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).version === NODE22_VERSION;
  if (!current) {
    process.stderr.write(
      `Installing ${name}@${NODE22_VERSION} into ${CACHE} (Node 22 for @x/mcp-hosted) ...\n`,
    );
    mkdirSync(CACHE, { recursive: true });
    writeFileSync(join(CACHE, 'package.json'), '{ "private": true }\n');
    try {
      execFileSync(
        'npm',
        ['install', '--no-audit', '--no-fund', '--loglevel=error', '--no-save', `${name}@${NODE22_VERSION}`],
        { cwd: CACHE, stdio: ['ignore', 'inherit', 'inherit'], timeout: 300_000 },
      );
    } catch (error) {
      process.stderr.write(
        `Could not install ${name}@${NODE22_VERSION} from the npm registry: ${error.message}\n`,
      );
      process.exit(1);
    }
  }
  return binary;
}

const node = node22();
const vitest = join(
  dirname(createRequire(join(ROOT, 'package.json')).resolve('vitest/package.json')),
  'vitest.mjs',
);
const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
process.stderr.write(`@x/mcp-hosted tests on Node ${version}\n`);
const child = spawn(
  node,
  [
    vitest,
    'run',
    '--root',
    PACKAGE,
    '--reporter=default',
    `--reporter=${join(ROOT, 'vitest.summary.ts')}`,
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit' },
);
child.once('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));
