#!/usr/bin/env node
// The MCP registry entry (server.json) of every package with a bin.
//
//   node scripts/server-json.mjs            check (CI): schema, consistency, environment
//   node scripts/server-json.mjs --sync     after `changeset version`: copy each package's
//                                           version into its server.json, then check
//   node scripts/server-json.mjs --write    after changing a provider's settings table: write
//                                           the generated parts (below), then check
//
// Generated from each provider's settings table (`settingsTable` of its built ./metadata entry,
// declared once in src/environment.ts), and checked here to be up to date:
// - its own variables at the head of server.json's environmentVariables (the runner's MCP_*
//   variables after them are kept as written);
// - the settings table in its README, between the `settings-table` markers.
//
// Checks, for every publishable package (and the schema alone, its 100-character description
// included, for a private package's server.json, such as the template's):
// - a package with a bin has a server.json next to its package.json (and one without has none);
// - it validates against the registry's server.json schema (scripts/schemas/server.schema.json,
//   the schema's validation keywords) and the official registry's extra rules (npm only from
//   https://registry.npmjs.org, no "latest", only the publisher-provided _meta key);
// - it agrees with package.json: name = mcpName (the registry's npm ownership check), both
//   versions = the package version, one npm package entry whose identifier is the package,
//   stdio transport, repository url and subfolder, and an io.github.<owner> namespace is the
//   repository's owner (the only namespace the release workflow can log in to);
// - its environment variables are the ones the built bin documents in `--help` (minus the
//   HTTP-only ones), and a variable named like a credential is marked isSecret.
import { execFile } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { applyPending, binsOf, log, pendingPackages, publishablePackages, ROOT } from './lib.mjs';

const sync = process.argv.includes('--sync');
const write = process.argv.includes('--write');
const schema = JSON.parse(await readFile(join(ROOT, 'scripts/schemas/server.schema.json'), 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats.default(ajv);
const validate = ajv.compile(schema);

/** Variables of the bin runner that only matter for --http; registry entries describe stdio. */
const HTTP_ONLY = new Set([
  'MCP_HTTP_TOKEN',
  'PORT',
  'MCP_LOG_FORMAT',
  'MCP_METRICS_TOKEN',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
]);
const NPM_REGISTRY = 'https://registry.npmjs.org';

// The generated parts (`generated` below): server.json's `format` of each type, the README's markers.
const FORMATS = { path: 'filepath', integer: 'number', number: 'number', boolean: 'boolean' };
const sentence = (text) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
const START =
  '<!-- settings-table:start (generated from src/environment.ts: node scripts/server-json.mjs --write) -->';
const END = '<!-- settings-table:end -->';
const cell = (text) => (text === undefined || text === '' ? '–' : String(text).replaceAll('|', '\\|'));
const code = (text) => (text === undefined ? '–' : `\`${text}\``);

const failures = [];
await generated();
const packages = await publishablePackages();
let checked = 0;
for (const pkg of packages) {
  const fail = (text) => failures.push({ pkg: pkg.name, text: `${pkg.folder}/server.json: ${text}` });
  const file = join(pkg.dir, 'server.json');
  const text = await readFile(file, 'utf8').catch(() => undefined);
  const bins = binsOf(pkg.manifest);
  if (bins.length === 0) {
    if (text !== undefined) fail('exists, but the package has no bin to run');
    continue;
  }
  if (text === undefined) {
    fail(
      `missing: a package with a bin (${bins.map(([bin]) => bin).join(', ')}) needs its MCP registry entry`,
    );
    continue;
  }
  let server = JSON.parse(text);
  if (sync) {
    server = syncVersions(server, pkg.manifest.version);
    await writeFile(file, `${JSON.stringify(server, null, 2)}\n`);
    // The repository's one formatter decides the layout, so the version PR stays lint-clean.
    await promisify(execFile)(join(ROOT, 'node_modules/.bin/biome'), ['format', '--write', file]);
  }
  checked++;

  if (!validate(server)) {
    for (const error of validate.errors ?? []) fail(`schema: ${error.instancePath || '/'} ${error.message}`);
  }
  if (server.$schema !== schema.$id) fail(`$schema must be ${schema.$id} (the schema this check knows)`);
  const { manifest } = pkg;
  if (server.name !== manifest.mcpName) {
    fail(`name "${server.name}" must equal package.json mcpName "${manifest.mcpName}" (npm ownership check)`);
  }
  if (server.version !== manifest.version) {
    fail(
      `version ${server.version} is not the package version ${manifest.version} (run pnpm version-packages)`,
    );
  }
  const repository = manifest.repository?.url?.replace(/^git\+/, '').replace(/\.git$/, '');
  if (server.repository?.url !== repository || server.repository?.subfolder !== pkg.folder) {
    fail(`repository must be { url: "${repository}", subfolder: "${pkg.folder}" } like package.json`);
  }
  // `mcp-publisher login github-oidc` grants io.github.<owner>/* to the workflows of <owner>.
  const owner = /^https:\/\/github\.com\/([^/]+)\//.exec(`${repository}/`)?.[1];
  const namespace = /^io\.github\.([^/]+)\//.exec(server.name ?? '')?.[1];
  if (namespace && owner && namespace.toLowerCase() !== owner.toLowerCase()) {
    fail(`name "${server.name}" is in io.github.${namespace}, but the repository belongs to ${owner}`);
  }
  for (const key of Object.keys(server._meta ?? {})) {
    if (key !== 'io.modelcontextprotocol.registry/publisher-provided') {
      fail(`_meta.${key} would be dropped by the official registry`);
    }
  }

  const npmEntries = (server.packages ?? []).filter((entry) => entry.registryType === 'npm');
  if (npmEntries.length !== 1) {
    fail(`needs exactly one packages[] entry with registryType "npm", found ${npmEntries.length}`);
    continue;
  }
  const [entry] = npmEntries;
  if (entry.identifier !== manifest.name) fail(`packages[].identifier must be ${manifest.name}`);
  if (entry.version !== manifest.version) fail(`packages[].version must be ${manifest.version}`);
  if (entry.registryBaseUrl !== undefined && entry.registryBaseUrl !== NPM_REGISTRY) {
    fail(`packages[].registryBaseUrl: the official registry accepts only ${NPM_REGISTRY}`);
  }
  if (entry.transport?.type !== 'stdio') fail('packages[].transport must be { "type": "stdio" }');

  const documented = await documentedEnvironment(pkg, bins[0]);
  const declared = (entry.environmentVariables ?? []).map((variable) => variable.name);
  for (const name of declared) {
    if (!documented.has(name)) fail(`environment variable ${name} is not in \`${bins[0][0]} --help\``);
  }
  for (const name of documented) {
    if (!HTTP_ONLY.has(name) && !declared.includes(name)) {
      fail(`environment variable ${name} (documented by \`${bins[0][0]} --help\`) is missing`);
    }
  }
  for (const variable of entry.environmentVariables ?? []) {
    if (/TOKEN|SECRET|PASSWORD|API_KEY/.test(variable.name) && variable.isSecret !== true) {
      fail(`environment variable ${variable.name} looks like a credential: set "isSecret": true`);
    }
  }
}

// A private package's server.json (the template, which every new provider copies) is held to the
// registry's schema too, its 100-character description included: a copy must not fail at release.
for (const group of ['packages', 'apps']) {
  const base = join(ROOT, group);
  for (const folder of await readdir(base).catch(() => [])) {
    const dir = join(base, folder);
    const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8').catch(() => '{}'));
    if (!manifest.private) continue;
    const text = await readFile(join(dir, 'server.json'), 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    checked++;
    if (!validate(JSON.parse(text))) {
      for (const error of validate.errors ?? []) {
        failures.push({
          pkg: manifest.name,
          text: `${group}/${folder}/server.json: schema: ${error.instancePath || '/'} ${error.message}`,
        });
      }
    }
  }
}

const pending = await pendingPackages();
const { blocking, tolerated } = applyPending(
  failures,
  packages.map((pkg) => pkg.name),
  pending,
);
if (tolerated.length > 0) {
  log(`Pending packages (scripts/packages-pending.json), not failing the run:`);
  for (const { text } of tolerated) log(`  ✗ ${text}`);
}
if (blocking.length > 0) {
  const show = ({ pkg, text }) => `  ✗ ${text.startsWith('packages/') ? '' : `${pkg}: `}${text}`;
  log(`server.json check FAILED:\n${blocking.map(show).join('\n')}`);
  process.exit(1);
}
log(`server.json ${sync ? 'synced and ' : ''}valid for ${checked} packages (schema ${schema.$id}).`);

function syncVersions(server, version) {
  return {
    ...server,
    version,
    packages: (server.packages ?? []).map((entry) =>
      entry.registryType === 'npm' ? { ...entry, version } : entry,
    ),
  };
}

/** The variable names in the `Environment:` section of the built bin's `--help`. */
async function documentedEnvironment(pkg, [bin, path]) {
  let stdout;
  try {
    ({ stdout } = await promisify(execFile)(process.execPath, [join(pkg.dir, path), '--help'], {
      timeout: 30_000,
    }));
  } catch (error) {
    throw new Error(`${bin} --help failed (run pnpm build first): ${error.message}`);
  }
  const section = stdout.split(/^Environment:\s*$/m)[1] ?? '';
  return new Set([...section.matchAll(/^\s{2}([A-Z][A-Z0-9_]+)\s/gm)].map((match) => match[1]));
}

/**
 * The parts of every provider's server.json and README generated from its settings table:
 * written with --write, else compared (a difference fails the check, naming the command).
 */
async function generated() {
  const base = join(ROOT, 'packages');
  for (const folder of (await readdir(base)).sort()) {
    const dir = join(base, folder);
    const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8').catch(() => '{}'));
    if (!manifest.exports?.['./metadata']) continue;
    const fail = (text) =>
      failures.push({
        pkg: manifest.name,
        text: `packages/${folder}/${text} (run node scripts/server-json.mjs --write)`,
      });
    let metadata;
    try {
      ({ metadata } = await import(pathToFileURL(join(dir, 'dist/metadata.js')).href));
    } catch (error) {
      throw new Error(
        `packages/${folder}: cannot load dist/metadata.js (run pnpm build first): ${error.message}`,
      );
    }
    const rows = metadata.settingsTable;
    const serverFile = join(dir, 'server.json');
    const serverText = await readFile(serverFile, 'utf8').catch(() => undefined);
    if (serverText !== undefined) {
      const server = JSON.parse(serverText);
      const next = withVariables(server, rows);
      if (JSON.stringify(next) !== JSON.stringify(server)) {
        if (write) await writeJson(serverFile, next);
        else fail("server.json: its provider's environment variables are not the settings table's");
      }
    }
    const readmeFile = join(dir, 'README.md');
    const readme = await readFile(readmeFile, 'utf8');
    const next = withSettingsTable(readme, rows);
    if (next === undefined) fail(`README.md: no ${START} … ${END} markers for the settings table`);
    else if (next !== readme) {
      if (write) await writeFile(readmeFile, next);
      else fail('README.md: the settings table is not the one generated from src/environment.ts');
    }
  }
}

async function writeJson(file, value) {
  await writeFile(file, `${JSON.stringify(value, null, 2)}\n`);
  await promisify(execFile)(join(ROOT, 'node_modules/.bin/biome'), ['format', '--write', file]);
}

/** server.json with the table's variables first in its npm entry, the others (the runner's) after. */
function withVariables(server, rows) {
  const own = rows
    .filter((row) => row.env)
    .map((row) => ({
      name: row.env,
      description: sentence(row.description),
      isRequired: false,
      ...(FORMATS[row.type] ? { format: FORMATS[row.type] } : {}),
      ...(row.secret ? { isSecret: true } : {}),
      ...(row.default === undefined ? {} : { default: row.default }),
    }));
  const names = new Set(own.map((variable) => variable.name));
  return {
    ...server,
    packages: (server.packages ?? []).map((entry) =>
      entry.registryType === 'npm'
        ? {
            ...entry,
            environmentVariables: [
              ...own,
              ...(entry.environmentVariables ?? []).filter((variable) => !names.has(variable.name)),
            ],
          }
        : entry,
    ),
  };
}

/** The README with the generated table between the markers; undefined without them. */
function withSettingsTable(readme, rows) {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) return undefined;
  const table = [
    '| variable | setting | in a config file | flag | default | what it sets |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${code(row.env)}${row.secret ? ' (secret)' : ''} | ${code(row.setting)} | ${row.config ? 'yes' : 'no'} | ${code(row.flag)} | ${code(row.default)} | ${cell(row.description)} |`,
    ),
  ].join('\n');
  return `${readme.slice(0, start)}${START}\n${table}\n${readme.slice(end)}`;
}
