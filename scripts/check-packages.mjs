#!/usr/bin/env node
// Checks every publishable package the way a user receives it: from its tarball.
//
//   node scripts/check-packages.mjs [--only forge,mcp-core] [--keep]
//
// 1. `pnpm pack` each package (not private) of the workspace: the tarball `pnpm publish` uploads.
// 2. Our manifest rules (ESM, exports with types first and ./package.json, files, sideEffects,
//    engines, repository.directory, publishConfig, mcpName and a shebang'd executable for
//    every bin, README / LICENSE / CHANGELOG in the tarball, no workspace: range left).
// 3. publint (strict) and attw (`--profile esm-only`) on that same tarball.
// 4. npm install of all tarballs into an empty directory under the OS temp dir, then:
//    - every bin: `--version`, and a real MCP client over stdio against `<bin> --sandbox`
//      (initialize, tools/list, one read-only tool call);
//    - every library entry point imported from a plain ESM script;
//    - a package that depends on a sibling imports it rather than bundling it (its bin excepted);
//    - a TypeScript file using every entry point, type-checked by tsc against the
//      installed types (skipLibCheck off, so our .d.ts files are checked too).
// Build first (`pnpm test` does). Needs the npm registry for the tarballs' dependencies.
import { copyFile, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import {
  applyPending,
  assertBuilt,
  binsOf,
  entryPointsOf,
  log,
  makeTempDir,
  packAll,
  pendingPackages,
  publishablePackages,
  ROOT,
  removeDir,
  run,
  runVisible,
  selectPackages,
} from './lib.mjs';

const { values: flags } = parseArgs({
  options: {
    only: { type: 'string' },
    keep: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (flags.help) {
  process.stderr.write(
    'Usage: node scripts/check-packages.mjs [--only <names>] [--keep]\n\n' +
      '  --only <names>  comma-separated package names or folders (default: every publishable package)\n' +
      '  --keep          keep the temporary directory (tarballs, consumer project) and print its path\n',
  );
  process.exit(0);
}

const started = performance.now();
const failures = [];
const fail = (pkg, text) => failures.push({ pkg: pkg.name, text });
const timings = {};
async function timed(label, work) {
  const t0 = performance.now();
  try {
    return await work();
  } finally {
    timings[label] = (timings[label] ?? 0) + (performance.now() - t0);
  }
}

const packages = selectPackages(await publishablePackages(), flags.only);
await assertBuilt(packages);
const work = await makeTempDir('x-pack-check-');
const tarballs = join(work, 'tarballs');
const consumer = join(work, 'consumer');
await mkdir(tarballs);
await mkdir(consumer);
log(`Checking ${packages.map((pkg) => pkg.name).join(', ')} in ${work}`);

try {
  await timed('pack', () => packAll(packages, tarballs));

  // The npm install (network-bound) runs while publint and attw (CPU-bound) check the tarballs.
  const installed = timed('npm install', () => installConsumer(packages));
  await timed('manifest, publint, attw', async () => {
    for (const pkg of packages) {
      await checkManifest(pkg);
      await checkPublint(pkg);
      await checkAttw(pkg);
    }
  });
  await installed;

  for (const pkg of packages) await checkInstalledFiles(pkg);
  // The bins (mostly waiting on child processes) run while tsc checks the types.
  await Promise.all([
    timed('bins over MCP', async () => {
      for (const pkg of packages) for (const [bin] of binsOf(pkg.manifest)) await checkBin(pkg, bin);
    }),
    timed('imports and tsc', async () => checkTypes(packages, await checkImports(packages))),
  ]);
} catch (error) {
  failures.push({ text: error.message });
} finally {
  if (flags.keep) log(`Kept ${work}`);
  else await removeDir(work);
}

const summary = Object.entries(timings)
  .map(([label, ms]) => `${label} ${(ms / 1000).toFixed(1)} s`)
  .join(', ');
const total = ((performance.now() - started) / 1000).toFixed(1);
const pending = await pendingPackages();
const { blocking, tolerated } = applyPending(
  failures,
  packages.map((pkg) => pkg.name),
  pending,
);
const show = ({ pkg, text }) => log(`  ✗ ${pkg ? `${pkg}: ` : ''}${text.replaceAll('\n', '\n    ')}`);
if (tolerated.length > 0) {
  log(`\nPending packages (scripts/packages-pending.json), not failing the run:`);
  for (const name of new Set(tolerated.map((failure) => failure.pkg))) log(`  ${name}: ${pending.get(name)}`);
  tolerated.forEach(show);
}
if (blocking.length > 0) {
  log(`\nPackage checks FAILED (${blocking.length}) in ${total} s:`);
  blocking.forEach(show);
  process.exit(1);
}
log(`\nPackage checks passed for ${packages.length} packages in ${total} s (${summary}).`);

// ---------------------------------------------------------------------------------------

/** Our own rules, on the package.json inside the tarball. */
async function checkManifest(pkg) {
  const listing = await tarListing(pkg.tarball);
  pkg.tarModes = listing;
  const packed = JSON.parse((await run('tar', ['-xzOf', pkg.tarball, 'package/package.json'])).stdout);
  pkg.packed = packed;
  const check = (ok, text) => ok || fail(pkg, text);

  check(packed.type === 'module', '"type" must be "module" (the packages are ESM only)');
  check(packed.sideEffects === false, '"sideEffects" must be false');
  check(typeof packed.engines?.node === 'string', '"engines.node" is missing');
  check(typeof packed.license === 'string', '"license" is missing');
  check(typeof packed.description === 'string' && packed.description.length > 0, '"description" is missing');
  check(Array.isArray(packed.files) && packed.files.includes('dist'), '"files" must list dist');
  check(
    packed.repository?.type === 'git' &&
      typeof packed.repository.url === 'string' &&
      packed.repository.directory === pkg.folder,
    `"repository" needs type "git", url and directory "${pkg.folder}"`,
  );
  check(
    packed.publishConfig?.access === 'public' && packed.publishConfig?.provenance === true,
    '"publishConfig" must be { "access": "public", "provenance": true }',
  );

  const exportsField = packed.exports;
  if (typeof exportsField !== 'object' || exportsField === null) {
    fail(pkg, '"exports" must be an object of subpaths');
  } else {
    check(exportsField['./package.json'] === './package.json', '"exports" lacks "./package.json"');
    for (const [subpath, target] of Object.entries(exportsField)) {
      if (subpath === './package.json') continue;
      const conditions = typeof target === 'object' && target !== null ? Object.keys(target) : [];
      check(conditions[0] === 'types', `exports["${subpath}"]: "types" must be the first condition`);
    }
  }

  for (const [field, ranges] of Object.entries({
    dependencies: packed.dependencies,
    peerDependencies: packed.peerDependencies,
    optionalDependencies: packed.optionalDependencies,
  })) {
    for (const [name, range] of Object.entries(ranges ?? {})) {
      check(!String(range).startsWith('workspace:'), `${field}.${name} is still "${range}" in the tarball`);
    }
  }

  const bins = binsOf(packed);
  if (bins.length > 0) {
    check(
      typeof packed.mcpName === 'string' && /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/.test(packed.mcpName),
      '"mcpName" (the MCP registry name, e.g. io.github.owner/name) is required for a package with a bin',
    );
  }
  for (const [bin, path] of bins) {
    const entry = listing.get(`package/${path.replace(/^\.\//, '')}`);
    if (!entry) fail(pkg, `bin ${bin} -> ${path} is not in the tarball`);
    else check(/^-..x/.test(entry), `bin ${bin} -> ${path} is not executable in the tarball (${entry})`);
  }
  for (const file of ['package/README.md', 'package/LICENSE']) {
    check(listing.has(file), `${file.slice(8)} is not in the tarball`);
  }
  const hasChangelog = await stat(join(pkg.dir, 'CHANGELOG.md')).then(
    () => true,
    () => false,
  );
  if (hasChangelog)
    check(listing.has('package/CHANGELOG.md'), 'CHANGELOG.md exists but is not in the tarball');
  // changesets writes CHANGELOG.md when it first versions a package; 0.0.0 was never released.
  else check(packed.version === '0.0.0', `version ${packed.version} has no CHANGELOG.md`);
}

/** `tar -tvzf`: path -> permission string, e.g. "-rwxr-xr-x". */
async function tarListing(tarball) {
  const { stdout } = await run('tar', ['-tvzf', tarball]);
  const listing = new Map();
  for (const line of stdout.split('\n')) {
    const match = /^(\S+)\s+.*?\s(package\/\S.*)$/.exec(line.trim());
    if (match) listing.set(match[2], match[1]);
  }
  return listing;
}

async function checkPublint(pkg) {
  const tarball = await readFile(pkg.tarball);
  const { messages, pkg: manifest } = await publint({
    pack: { tarball: tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.byteLength) },
    level: 'suggestion',
    strict: true,
  });
  for (const message of messages) {
    fail(
      pkg,
      `publint ${message.type}: ${formatMessage(message, manifest, { color: false }) ?? message.code}`,
    );
  }
}

async function checkAttw(pkg) {
  // esm-only: our packages are ESM only (docs/decisions/0003-esm-only-packages.md), so
  // `require` from CommonJS and the pre-exports node10 resolution are out of scope.
  try {
    await run(
      join(ROOT, 'node_modules/.bin/attw'),
      [pkg.tarball, '--profile', 'esm-only', '--format', 'ascii'],
      {
        timeoutMs: 120_000,
      },
    );
  } catch (error) {
    fail(pkg, `attw: ${error.message}`);
  }
}

/** The consumer: an empty ESM project that installs every tarball plus what a user would add. */
async function installConsumer(packages) {
  const rootManifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
  const core = packages.find((pkg) => pkg.name === '@x/mcp-core')?.manifest;
  // What a user adds next to our packages, in the ranges the workspace itself tests with:
  // zod (core's peer), the MCP client (our smoke client, and an optional peer of
  // @x/mcp-core/testing like vitest), TypeScript and Node's types for the type check.
  const extras = {
    zod: core?.devDependencies?.zod ?? '^4',
    '@modelcontextprotocol/client': core?.devDependencies?.['@modelcontextprotocol/client'] ?? '^2',
    vitest: rootManifest.devDependencies.vitest,
    typescript: rootManifest.devDependencies.typescript,
    '@types/node': rootManifest.devDependencies['@types/node'],
  };
  await writeFile(
    join(consumer, 'package.json'),
    `${JSON.stringify({ name: 'x-pack-consumer', version: '0.0.0', private: true, type: 'module' }, null, 2)}\n`,
  );
  await runVisible(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--loglevel=error',
      ...packages.map((pkg) => pkg.tarball),
      ...Object.entries(extras).map(([name, range]) => `${name}@${range}`),
    ],
    { cwd: consumer, timeoutMs: 600_000 },
  );
  for (const file of ['bin-client.mjs', 'imports.mjs']) {
    await copyFile(join(ROOT, 'scripts/smoke', file), join(consumer, file));
  }
}

/** What npm put into node_modules: the files users run. */
async function checkInstalledFiles(pkg) {
  const installedDir = join(consumer, 'node_modules', pkg.name);
  const installed = JSON.parse(await readFile(join(installedDir, 'package.json'), 'utf8'));
  if (installed.version !== pkg.manifest.version) {
    fail(pkg, `node_modules has version ${installed.version}, expected the packed ${pkg.manifest.version}`);
  }
  for (const [bin, path] of binsOf(installed)) {
    const head = (await readFile(join(installedDir, path), 'utf8')).split('\n', 1)[0];
    if (head !== '#!/usr/bin/env node')
      fail(pkg, `bin ${bin} must start with "#!/usr/bin/env node", found "${head}"`);
  }
  // A shebang belongs on the bin only: library modules are imported, not executed.
  const bins = new Set(binsOf(installed).map(([, path]) => path.replace(/^\.\//, '')));
  const declared = new Set(Object.keys({ ...installed.dependencies, ...installed.peerDependencies }));
  const used = new Set();
  for (const file of pkg.packedFiles) {
    const code = /\.(js|d\.ts)$/.test(file);
    if (!code) continue;
    const text = await readFile(join(installedDir, file), 'utf8');
    if (file.endsWith('.js') && !bins.has(file) && text.startsWith('#!')) {
      fail(pkg, `${file} is a library module but starts with a shebang`);
    }
    // Every package the shipped code imports must be declared: in the combined install a
    // missing dependency can be hidden by another package's copy, so it is checked here.
    for (const specifier of importedPackages(text)) {
      used.add(specifier);
      if (!declared.has(specifier)) {
        fail(pkg, `${file} imports "${specifier}", which is not in dependencies or peerDependencies`);
      }
    }
  }
  for (const name of Object.keys(installed.dependencies ?? {})) {
    if (!used.has(name)) fail(pkg, `dependency ${name} is imported by no file in the tarball: remove it`);
  }
}

/**
 * The package names a module imports, builtins left out: import / export statements (they
 * start a line in esbuild's and tsup's .js and .d.ts output), side-effect imports, `import("x")`.
 */
function importedPackages(text) {
  const names = new Set();
  const patterns = [
    /^(?:import|export)\b[^;'"]*?\bfrom\s*["']([^"'.][^"']*)["']/gm,
    /^import\s*["']([^"'.][^"']*)["']/gm,
    /\bimport\(\s*["']([^"'.][^"']*)["']\s*\)/g,
  ];
  for (const [, specifier] of patterns.flatMap((pattern) => [...text.matchAll(pattern)])) {
    if (specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0])) continue;
    const parts = specifier.split('/');
    names.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
  }
  return names;
}

async function checkBin(pkg, bin) {
  const home = join(work, 'home', bin);
  await mkdir(home, { recursive: true });
  const binPath = join(consumer, 'node_modules/.bin', bin);
  let stdout = '';
  try {
    ({ stdout } = await run(process.execPath, ['bin-client.mjs', binPath, pkg.manifest.version], {
      cwd: consumer,
      timeoutMs: 90_000,
      // A private HOME: a sandboxed bin must not need (or touch) the developer's own config.
      env: { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), MCP_LOG_LEVEL: 'warn' },
    }));
  } catch (error) {
    const line = error.message.split('\n').find((text) => text.startsWith('{'));
    const report = line ? JSON.parse(line) : undefined;
    fail(pkg, `bin ${bin}: ${report ? report.problems.join('; ') : error.message}`);
    return;
  }
  const report = JSON.parse(stdout);
  log(
    `  ${bin}: ${report.version}, ${report.tools} tools, ${report.call.tool} --sandbox answered ` +
      `${JSON.stringify(report.call.text.slice(0, 60))}…`,
  );
}

async function checkImports(packages) {
  const specifiers = packages.flatMap((pkg) => entryPointsOf(pkg.manifest));
  let modules;
  try {
    const { stdout } = await run(process.execPath, ['imports.mjs', ...specifiers], { cwd: consumer });
    modules = JSON.parse(stdout);
  } catch (error) {
    const line = error.message.split('\n').find((text) => text.startsWith('{'));
    modules = line ? JSON.parse(line) : {};
    if (!line) failures.push({ text: `imports: ${error.message}` });
  }
  for (const pkg of packages) {
    for (const specifier of entryPointsOf(pkg.manifest)) {
      const module = modules[specifier];
      if (!module) continue;
      if (module.error) fail(pkg, `import('${specifier}') from a plain ESM script threw ${module.error}`);
      else if (module.exports.length === 0) fail(pkg, `import('${specifier}') has no exports`);
      else log(`  import('${specifier}'): ${module.exports.length} exports`);
    }
    const json = JSON.parse(
      await readFile(join(consumer, 'node_modules', pkg.name, 'package.json'), 'utf8').catch(() => '{}'),
    );
    if (json.name !== pkg.name) fail(pkg, `${pkg.name}/package.json is not installed`);
  }
  await checkNotBundled(packages, modules);
  return modules;
}

/**
 * A package that depends on a sibling (a provider on @x/mcp-core) must import it at run time in
 * its library entry points: bundled, its error classes would be a second copy and `instanceof`
 * would break.
 */
async function checkNotBundled(packages, modules) {
  for (const pkg of packages) {
    // A bin is a program of its own, never imported: it bundles the core (dist/bin.js and the
    // chunks under dist/bin/, see tsup.provider.ts) to start fast, and shares no instances.
    const binFiles = new Set(binsOf(pkg.packed ?? pkg.manifest).map(([, path]) => path.replace(/^\.\//, '')));
    const dist = await Promise.all(
      pkg.packedFiles
        .filter((file) => file.endsWith('.js') && !binFiles.has(file) && !file.startsWith('dist/bin/'))
        .map((file) => readFile(join(consumer, 'node_modules', pkg.name, file), 'utf8')),
    );
    for (const sibling of packages) {
      if (!pkg.packed?.dependencies?.[sibling.name]) continue;
      const quoted = new RegExp(`["']${sibling.name.replace('/', '\\/')}(/[^"']*)?["']`);
      if (!dist.some((text) => quoted.test(text))) {
        fail(pkg, `depends on ${sibling.name} but no file in dist imports it: it was bundled`);
      }
      const classes = entryPointsOf(sibling.manifest).flatMap(
        (specifier) => modules[specifier]?.classes ?? [],
      );
      // `class McpToolError` or esbuild's `var McpToolError = class extends Error`.
      const inlined = classes.filter((name) =>
        dist.some((text) => new RegExp(`\\bclass\\s+_*${name}\\b|\\b${name}\\s*=\\s*class\\b`).test(text)),
      );
      if (inlined.length > 0) {
        fail(
          pkg,
          `dist defines class ${inlined.slice(0, 5).join(', ')} of ${sibling.name}: bundled, not imported`,
        );
      }
    }
  }
}

async function checkTypes(packages, modules) {
  const lines = ['// Generated by scripts/check-packages.mjs: type-checked against the installed packages.'];
  const uses = [];
  let index = 0;
  const core = packages.find((pkg) => pkg.name === '@x/mcp-core');
  for (const pkg of packages) {
    for (const specifier of entryPointsOf(pkg.manifest)) {
      const alias = `entry${index++}`;
      lines.push(`import * as ${alias} from '${specifier}';`);
      uses.push(alias);
      for (const name of modules[specifier]?.functions ?? []) {
        // Every provider factory must be usable with the installed core's registry without settings.
        if (core && /^create\w+Provider$/.test(name)) uses.push(`registry.use(${alias}.${name}())`);
      }
    }
  }
  if (core) {
    lines.push(
      "import { defineTool, ToolRegistry } from '@x/mcp-core';",
      "import { z } from 'zod';",
      '',
      '// The handler input is inferred from the zod schema a user passes (zod is a peer dependency).',
      'export const shout = defineTool({',
      "  name: 'shout',",
      "  title: 'Shout',",
      "  description: 'Returns the text in capitals.',",
      "  inputSchema: z.strictObject({ text: z.string().describe('Text to shout') }),",
      '  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },',
      '  handler: async ({ text }) => {',
      '    // @ts-expect-error text is a string (inferred), not a number',
      '    text.toFixed(1);',
      '    return text.toUpperCase();',
      '  },',
      '});',
      'export const registry = new ToolRegistry().register(shout);',
    );
  }
  lines.push('', `export const used = [${uses.join(', ')}];`, '');
  await writeFile(join(consumer, 'check.ts'), lines.join('\n'));
  await writeFile(
    join(consumer, 'tsconfig.json'),
    `${JSON.stringify(
      {
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
        },
        files: ['check.ts'],
      },
      null,
      2,
    )}\n`,
  );
  try {
    await run(join(consumer, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], { cwd: consumer });
    log(
      `  tsc: check.ts (${uses.length} uses of ${index} entry points) type-checks against the installed types`,
    );
  } catch (error) {
    failures.push({ text: `tsc against the installed types: ${error.message}\n${lines.join('\n')}` });
  }
}
