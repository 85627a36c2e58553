#!/usr/bin/env node
// Runs this package's tests on Node 22 (the package needs >= 22.12; the rest of the
// repository runs on the machine's Node 20 in the root `vitest run`).
// The runtime comes from scripts/node22.mjs (the current Node when it is >= 22.12, else the
// pinned binary from the npm registry). Extra arguments go to vitest.
//
//   node packages/hosted/scripts/test.mjs [vitest args]      (pnpm test:hosted)
import { execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { node22 } from '../../../scripts/node22.mjs';

const PACKAGE = dirname(dirname(fileURLToPath(import.meta.url)));
const ROOT = join(PACKAGE, '../..');

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
