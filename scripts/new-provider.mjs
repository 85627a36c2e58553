#!/usr/bin/env node
// `pnpm new-provider <name>`: a new provider package, packages/<name>, from packages/_template.
//
//   pnpm new-provider linear [--title Linear] [--description "…"] [--private] [--no-install]
//
// It copies every file of the template but build output and installs (dist/, node_modules/,
// .turbo/, coverage/, *.tsbuildinfo), renames what names the template in file names and text
// (`@x/mcp-template` → `@x/mcp-<name>`, `template-mcp` → `<name>-mcp`, `TEMPLATE_` → `<NAME>_`,
// `Template` → `<Name>`, the id `'template'` → `'<name>'`, `packages/_template` → `packages/<name>`),
// drops the blocks marked `<!-- template-only: start -->` … `<!-- template-only: end -->`, sets the
// title and description of package.json, server.json and the README, writes a changeset for the
// first release (unless --private, which keeps `"private": true`), and runs `pnpm install` so the
// lockfile knows the package. It writes nothing when the name is taken or any text would still
// name the template after the renaming (that is a rule the template must keep: see the list).
//
// `--root <dir>` scaffolds into another checkout (scripts/test/new-provider.test.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const SKIPPED = new Set(['dist', 'node_modules', '.turbo', 'coverage']);
const NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const MAX_DESCRIPTION = 100; // the MCP registry's limit for server.json's description
const TEMPLATE_ONLY = /<!-- template-only: start[^>]*-->[\s\S]*?<!-- template-only: end -->\n*/g;

/** The names a provider called `name` uses, e.g. `context-forge`: `ContextForge`, `CONTEXT_FORGE`. */
export function namesOf(name) {
  const words = name.split('-');
  const pascal = words.map((word) => word[0].toUpperCase() + word.slice(1)).join('');
  return {
    id: name,
    pascal,
    camel: pascal[0].toLowerCase() + pascal.slice(1),
    constant: words.join('_').toUpperCase(),
    title: words.map((word) => word[0].toUpperCase() + word.slice(1)).join(' '),
  };
}

/**
 * Library names that contain the word and are not the template's (the SDK's resource templates):
 * neither renamed nor counted as left over.
 */
const NOT_OURS = /\b\w*(?:ResourceTemplate|uriTemplate|UriTemplate)\w*/g;

/** `text` with every name of the template replaced by the new provider's. */
export function rename(text, name) {
  let at = 0;
  let result = '';
  for (const match of text.matchAll(NOT_OURS)) {
    result += renameOurs(text.slice(at, match.index), name) + match[0];
    at = match.index + match[0].length;
  }
  return result + renameOurs(text.slice(at), name);
}

function renameOurs(text, name) {
  const names = namesOf(name);
  return (
    text
      .replaceAll('packages/_template', `packages/${name}`)
      .replaceAll('mcp-template', `mcp-${name}`)
      .replaceAll('template-mcp', `${name}-mcp`)
      .replace(/\bTEMPLATE(?=_|\b)/g, names.constant)
      .replaceAll('Template', names.pascal)
      .replace(/\btemplate(?=[A-Z])/g, names.camel)
      .replace(/(['"`])template\1/g, `$1${name}$1`)
      // The tool prefix a composed server gives it (metadata): snake case, as tool names are.
      .replace(/(['"`])template_\1/g, `$1${names.constant.toLowerCase()}_$1`)
      .replaceAll('--project template', `--project ${name}`)
  );
}

/** `text` as a single-quoted TypeScript string. */
function quoted(text) {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

/** Where a text still names the template: `file line: text`. */
export function leftovers(files) {
  const found = [];
  for (const [path, text] of files) {
    if (/template/i.test(path)) found.push(`${path}: the file name`);
    text.split('\n').forEach((line, index) => {
      if (/template/i.test(line.replace(NOT_OURS, '')))
        found.push(`${path} line ${index + 1}: ${line.trim()}`);
    });
  }
  return found;
}

/** Every file of `dir` below it, build output and installs left out: [relative path, text]. */
function readTree(dir, base = dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name) || entry.name.endsWith('.tsbuildinfo')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...readTree(path, base));
    else if (entry.isFile())
      files.push([relative(base, path), readFileSync(path, 'utf8'), statSync(path).mode]);
  }
  return files;
}

function fail(message) {
  process.stderr.write(`new-provider: ${message}\n`);
  process.exit(1);
}

function main() {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        title: { type: 'string' },
        description: { type: 'string' },
        private: { type: 'boolean', default: false },
        'no-install': { type: 'boolean', default: false },
        root: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    fail(
      `${error.message}. Usage: pnpm new-provider <name> [--title T] [--description D] [--private] [--no-install]`,
    );
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    process.stdout.write(
      'Usage: pnpm new-provider <name> [--title <title>] [--description <text>] [--private] [--no-install]\n\n' +
        'Scaffolds packages/<name> (@x/mcp-<name>, bin <name>-mcp) from packages/_template, writes a\n' +
        'changeset for its first release (none with --private, which keeps it private) and runs\n' +
        '`pnpm install`. <name>: lower case words joined by "-", e.g. linear or google-drive.\n',
    );
    process.exit(values.help ? 0 : 1);
  }
  if (positionals.length > 1) fail(`one name, got ${positionals.length}: ${positionals.join(' ')}`);
  const name = positionals[0];
  if (!NAME.test(name) || name.length > 40) {
    fail(
      `"${name}" is not a provider name: lower case letters and digits, words joined by "-" (e.g. linear, google-drive), at most 40 characters.`,
    );
  }
  if (/template/.test(name)) fail(`"${name}" would be renamed along with the template; pick another name.`);
  const root = values.root ?? join(fileURLToPath(new URL('.', import.meta.url)), '..');
  const names = namesOf(name);
  const title = values.title ?? names.title;
  const description = (values.description ?? `MCP tools for ${title}`).trim().replace(/\.+$/, '');
  if (description.length > MAX_DESCRIPTION) {
    fail(`the description has ${description.length} characters; server.json allows ${MAX_DESCRIPTION}.`);
  }
  const packageName = `@x/mcp-${name}`;
  const target = join(root, 'packages', name);
  if (existsSync(target)) fail(`packages/${name} exists already.`);
  for (const group of ['packages', 'apps']) {
    const groupDir = join(root, group);
    if (!existsSync(groupDir)) continue;
    for (const entry of readdirSync(groupDir)) {
      const manifest = join(groupDir, entry, 'package.json');
      if (existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).name === packageName) {
        fail(`${group}/${entry} is already called ${packageName}.`);
      }
    }
  }

  const template = join(root, 'packages/_template');
  const files = readTree(template).map(([path, text, mode]) => {
    let renamed = rename(text, name);
    if (path === 'README.md') {
      renamed = `# ${packageName}\n\n${description}.\n\n${renamed.replace(TEMPLATE_ONLY, '')}`;
    }
    if (path === 'package.json') renamed = manifestOf(renamed, description, values.private);
    if (path === 'server.json') renamed = serverJsonOf(renamed, title, description);
    if (path === 'src/metadata.ts')
      renamed = renamed.replace(/^(\s*title: )'[^']*',$/m, `$1${quoted(title)},`);
    return [rename(path, name), renamed, mode];
  });
  const left = leftovers(files.map(([path, text]) => [path, text]));
  if (left.length > 0) {
    fail(
      `after renaming, these still name the template (nothing was written; make the template say them in words the renaming knows):\n  ${left.join('\n  ')}`,
    );
  }

  for (const [path, text, mode] of files) {
    mkdirSync(join(target, path, '..'), { recursive: true });
    writeFileSync(join(target, path), text, { mode });
  }
  const written = [`packages/${name}/ (${files.length} files)`];
  if (!values.private) {
    const changeset = join(root, '.changeset', `${name}-first-release.md`);
    mkdirSync(join(root, '.changeset'), { recursive: true });
    writeFileSync(
      changeset,
      `---\n'${packageName}': minor\n---\n\nFirst release of \`${packageName}\` and its \`${name}-mcp\` bin: ${description}.\n`,
    );
    written.push(relative(root, changeset));
  }
  // The repository's one formatter decides the layout (JSON rewritten above), so lint passes as is.
  const biome = join(root, 'node_modules/.bin/biome');
  if (existsSync(biome)) {
    const formatted = spawnSync(biome, ['format', '--write', relative(root, target)], {
      cwd: root,
      encoding: 'utf8',
    });
    if (formatted.status !== 0)
      process.stderr.write(`new-provider: formatting failed; run \`pnpm format\`.\n`);
  }
  process.stdout.write(`new-provider: wrote ${written.join(' and ')}.\n`);
  if (!values['no-install']) {
    const install = spawnSync('pnpm', ['install'], { cwd: root, stdio: 'inherit' });
    if (install.status !== 0) fail('`pnpm install` failed; run it again once the cause is fixed.');
  }
  process.stdout.write(
    [
      '',
      'Next (docs/writing-a-provider.md):',
      `  pnpm turbo run build --filter=${packageName} && pnpm vitest run --project ${name}`,
      `  write the tools, the settings table and the fake's routes in packages/${name}/src`,
      '  pnpm format && pnpm lint && pnpm test:packages',
      '',
    ].join('\n'),
  );
}

function manifestOf(text, description, keepPrivate) {
  const manifest = JSON.parse(text);
  manifest.description = description;
  if (!keepPrivate) delete manifest.private;
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

function serverJsonOf(text, title, description) {
  const server = JSON.parse(text);
  server.title = title;
  server.description = description;
  return `${JSON.stringify(server, null, 2)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
