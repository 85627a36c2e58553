#!/usr/bin/env node
// Part of `pnpm lint`: every changeset in .changeset/ names only packages that changesets will
// release: workspace packages that exist, are not private and are not in the config's `ignore`.
// `changeset version` (the release job) refuses a changeset that mixes a private or ignored
// package (`@x/server`, `@x/demo`) with published ones, and it would fail only at release time.
//
//   node scripts/changesets.mjs
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './lib.mjs';

const config = JSON.parse(readFileSync(join(ROOT, '.changeset', 'config.json'), 'utf8'));
const ignored = new Set(config.ignore ?? []);

const releasable = new Map();
for (const group of ['packages', 'apps', 'bench']) {
  let names;
  try {
    names = readdirSync(join(ROOT, group), { withFileTypes: true });
  } catch {
    continue;
  }
  for (const entry of names) {
    if (!entry.isDirectory()) continue;
    let manifest;
    try {
      manifest = JSON.parse(readFileSync(join(ROOT, group, entry.name, 'package.json'), 'utf8'));
    } catch {
      continue;
    }
    const why = manifest.private
      ? 'private'
      : ignored.has(manifest.name)
        ? 'ignored in .changeset/config.json'
        : '';
    releasable.set(manifest.name, why);
  }
}
if (releasable.size === 0) throw new Error('scripts/changesets.mjs found no workspace package');

const problems = [];
const files = readdirSync(join(ROOT, '.changeset')).filter(
  (file) => file.endsWith('.md') && file !== 'README.md',
);
for (const file of files) {
  const text = readFileSync(join(ROOT, '.changeset', file), 'utf8');
  const front = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  if (!front) {
    problems.push(`${file}: no frontmatter (--- … ---)`);
    continue;
  }
  const lines = front[1].split(/\r?\n/).filter((line) => line.trim() !== '');
  for (const line of lines) {
    const match = /^\s*['"]?([^'":]+)['"]?\s*:\s*(major|minor|patch)\s*$/.exec(line);
    if (!match) {
      problems.push(`${file}: "${line}" is not \`'<package>': major|minor|patch\``);
      continue;
    }
    const name = match[1];
    if (!releasable.has(name)) problems.push(`${file}: ${name} is not a workspace package`);
    else if (releasable.get(name))
      problems.push(
        `${file}: ${name} is ${releasable.get(name)}; changesets releases only published packages`,
      );
  }
}
if (problems.length > 0) {
  process.stderr.write(
    `Changesets that \`changeset version\` would refuse:\n${problems.map((p) => `  ${p}`).join('\n')}\n`,
  );
  process.exit(1);
}
process.stderr.write(`changesets: ${files.length} file(s), every package releasable\n`);
