#!/usr/bin/env node
// Bundle report: what `npm install <package>` costs a user, and how fast each bin starts
// after such an install, next to a plain MCP SDK v2 server installed the same way.
//
//   node scripts/bundle-report.mjs [--runs 10] [--only forge] [--no-pin]
//
// For every publishable package: `pnpm pack`, then `npm install` of that tarball alone (plus
// the tarballs of the sibling packages it depends on, which are not on npm yet) into its own
// empty directory under the OS temp dir. Reported: tarball size, unpacked size, installed
// size (node_modules, apparent bytes) and the number of installed dependency packages. Then
// each bin's cold start (spawn -> first tools/list answer, bench/lib.mjs) from that install,
// interleaved with the plain SDK server (bench/fixtures/plain-sdk.mjs next to an npm install
// of @modelcontextprotocol/server and zod). Prints Markdown to stdout. Build first
// (`pnpm bundle-report` does).
import { copyFile, lstat, mkdir, readdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { coldStart, fmt, median, pinning, quantile, usePinning } from '../bench/lib.mjs';
import {
  assertBuilt,
  binsOf,
  log,
  makeTempDir,
  packAll,
  publishablePackages,
  ROOT,
  removeDir,
  runVisible,
  selectPackages,
} from './lib.mjs';

const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string', default: '10' },
    only: { type: 'string' },
    pin: { type: 'boolean', default: true },
    help: { type: 'boolean', short: 'h', default: false },
  },
  allowNegative: true,
});
if (flags.help) {
  process.stderr.write(
    'Usage: node scripts/bundle-report.mjs [--runs <n>] [--only <names>] [--no-pin]\n\n' +
      '  --runs <n>      cold starts per bin and for the plain SDK server, interleaved (default 10)\n' +
      '  --only <names>  comma-separated package names or folders (default: every publishable package)\n' +
      '  --no-pin        do not pin this process to CPU 0 and the servers to CPU 1\n',
  );
  process.exit(0);
}
const runs = Number(flags.runs);
usePinning(flags.pin);

const all = await publishablePackages();
const packages = selectPackages(all, flags.only);
await assertBuilt(packages);
const work = await makeTempDir('x-bundle-report-');
try {
  const tarballs = join(work, 'tarballs');
  await mkdir(tarballs);
  await packAll(packages, tarballs);
  const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));

  const rows = [];
  for (const pkg of packages) {
    const dir = join(work, `install-${pkg.folder.split('/').pop()}`);
    const siblings = siblingClosure(pkg, byName).filter((other) => other !== pkg);
    await npmInstall(dir, [pkg.tarball, ...siblings.map((other) => other.tarball)]);
    rows.push({
      pkg,
      dir,
      tarball: (await stat(pkg.tarball)).size,
      unpacked: await apparentSize(join(dir, 'node_modules', pkg.name)),
      ...(await installSize(dir, pkg.name)),
    });
  }

  // The reference: a plain SDK v2 server, installed from npm the same way.
  const core = all.find((pkg) => pkg.name === '@x/mcp-core')?.manifest;
  const plainDir = join(work, 'install-plain-sdk');
  await npmInstall(plainDir, [
    `@modelcontextprotocol/server@${core?.dependencies?.['@modelcontextprotocol/server'] ?? '^2'}`,
    `zod@${core?.devDependencies?.zod ?? '^4'}`,
  ]);
  await copyFile(join(ROOT, 'bench/fixtures/plain-sdk.mjs'), join(plainDir, 'plain-sdk.mjs'));
  const plain = { label: 'plain SDK v2 server (one tool)', ...(await installSize(plainDir)) };

  // Cold starts: every bin and the plain server in turn, `runs` rounds.
  const home = join(work, 'home');
  await mkdir(home);
  const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), MCP_LOG_LEVEL: 'silent' };
  const targets = [{ label: 'plain', args: [join(plainDir, 'plain-sdk.mjs')], times: [] }];
  for (const row of rows) {
    for (const [bin, path] of binsOf(row.pkg.manifest)) {
      const file = await realpath(join(row.dir, 'node_modules', row.pkg.name, path));
      targets.push({ label: bin, row, args: [file], times: [] });
    }
  }
  const checkTools = (result) => {
    if (!Array.isArray(result.tools) || result.tools.length === 0)
      throw new Error('tools/list returned no tools');
  };
  for (let round = 0; round < runs; round++) {
    for (const target of targets) {
      target.times.push(await coldStart({ name: target.label, args: target.args, env }, checkTools));
    }
    log(`cold starts: round ${round + 1}/${runs}`);
  }

  const plainMedian = median(targets[0].times);
  const lines = [
    `Installed with npm from the packed tarballs on Node ${process.version}, ${runs} interleaved cold starts per`,
    `server${pinning ? ' (driver on CPU 0, servers on CPU 1)' : ''}.`,
    '',
    '| package | tarball | unpacked | installed (node_modules) | dependency packages |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (row) =>
        `| \`${row.pkg.name}\` | ${kb(row.tarball)} | ${kb(row.unpacked)} | ${mb(row.bytes)} | ${row.dependencies} |`,
    ),
    `| ${plain.label}: \`@modelcontextprotocol/server\` + \`zod\` | – | – | ${mb(plain.bytes)} | ${plain.dependencies} |`,
    '',
    '| bin | cold start, median (ms) | p90 (ms) | plain SDK server, median (ms) | ratio |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...targets
      .slice(1)
      .map(
        (target) =>
          `| \`${target.label}\` | ${fmt(median(target.times))} | ${fmt(quantile(target.times, 0.9))} | ` +
          `${fmt(plainMedian)} | ${fmt(median(target.times) / plainMedian, 2)}× |`,
      ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await removeDir(work);
}

function siblingClosure(pkg, byName, seen = new Set()) {
  if (seen.has(pkg)) return [];
  seen.add(pkg);
  for (const name of Object.keys(pkg.manifest.dependencies ?? {})) {
    if (byName.has(name)) siblingClosure(byName.get(name), byName, seen);
  }
  return [...seen];
}

async function npmInstall(dir, specs) {
  await mkdir(dir);
  await writeFile(
    join(dir, 'package.json'),
    '{ "name": "x-bundle-report", "private": true, "type": "module" }\n',
  );
  await runVisible(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', ...specs],
    { cwd: dir, timeoutMs: 600_000 },
  );
}

/**
 * node_modules' apparent size, and the number of packages npm installed (from its lockfile)
 * besides `self`, the package being measured.
 */
async function installSize(dir, self) {
  const lock = JSON.parse(await readFile(join(dir, 'package-lock.json'), 'utf8'));
  const installed = Object.keys(lock.packages).filter(
    (key) => key.startsWith('node_modules/') && key !== `node_modules/${self}`,
  );
  return { bytes: await apparentSize(join(dir, 'node_modules')), dependencies: installed.length };
}

async function apparentSize(path) {
  const info = await lstat(path);
  if (!info.isDirectory()) return info.size;
  let total = 0;
  for (const entry of await readdir(path)) total += await apparentSize(join(path, entry));
  return total;
}

function kb(bytes) {
  return `${fmt(bytes / 1024)} kB`;
}
function mb(bytes) {
  return `${fmt(bytes / 1024 / 1024)} MB`;
}
