#!/usr/bin/env node
// Finds a provider's own tool names written as bare words inside string literals of its
// sources, where a model would read them unprefixed in a composed server. With --write, turns
// each into `${toolRef('name')}` (the literal becomes a template literal) and imports toolRef.
// Names without an underscore (`search`) are plain words as well: they are only reported, never
// rewritten, so prose stays intact; convert those by hand.
//
//   node scripts/tool-refs.mjs packages/basecamp            list what is left
//   node scripts/tool-refs.mjs packages/basecamp --write    convert (then review the diff)
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './lib.mjs';

const [target, ...flags] = process.argv.slice(2);
if (!target) {
  process.stderr.write('Usage: node scripts/tool-refs.mjs <package directory> [--write]\n');
  process.exit(2);
}
const write = flags.includes('--write');
const src = join(ROOT, target, 'src');

const files = [];
const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'testing') walk(path);
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && entry.name !== 'bin.ts') {
      files.push(path);
    }
  }
};
walk(src);

// The provider's tool names: every `name: '…'` in src/tools, its subfolders included.
const names = new Set();
for (const file of files.filter((path) => relative(src, path).startsWith('tools'))) {
  for (const match of readFileSync(file, 'utf8').matchAll(/^\s*name: '([a-z0-9_-]+)'/gm)) {
    names.add(match[1]);
  }
}
const sorted = [...names].sort((a, b) => b.length - a.length);
const word = new RegExp(`(?<![\\w$'{-])(${sorted.join('|')})(?![\\w'-])`, 'g');
// Comments are skipped; string literals of the three kinds are examined.
const token = /\/\/[^\n]*|\/\*[\s\S]*?\*\/|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g;

let found = 0;
for (const file of files) {
  const text = readFileSync(file, 'utf8');
  let changed = false;
  const converted = text.replace(token, (literal, offset) => {
    if (literal.startsWith('//') || literal.startsWith('/*')) return literal;
    const body = literal.slice(1, -1);
    if (/^[a-z0-9_-]+$/.test(body)) return literal; // a name used as a value, e.g. `name: 'x'`
    // Text inside ${...} is code, not prose.
    const parts = body.split(/(\$\{[^}]*\})/);
    let rewritten = false;
    const out = parts.map((part) => {
      if (part.startsWith('${')) return part;
      return part.replace(word, (name) => {
        found++;
        const line = text.slice(0, offset).split('\n').length;
        const auto = name.includes('_');
        process.stdout.write(
          `${relative(ROOT, file)}:${line}: ${name}${auto ? '' : ' (plain word: convert by hand)'}\n`,
        );
        if (!auto) return name;
        rewritten = true;
        return `\${toolRef('${name}')}`;
      });
    });
    if (!rewritten) return literal;
    changed = true;
    let inner = out.join('');
    if (literal[0] !== '`') {
      inner = inner.replace(/`/g, '\\`');
      inner = literal[0] === "'" ? inner.replace(/\\'/g, "'") : inner.replace(/\\"/g, '"');
    }
    return `\`${inner}\``;
  });
  if (write && changed) {
    let next = converted;
    if (!/\btoolRef\b/.test(text)) {
      const core = /import \{([^}]*)\} from '@x\/mcp-core';/.exec(next);
      next = core
        ? next.replace(core[0], `import {${core[1].replace(/,?\s*$/, '')}, toolRef } from '@x/mcp-core';`)
        : `import { toolRef } from '@x/mcp-core';\n${next}`;
    }
    writeFileSync(file, next);
  }
}
process.stderr.write(
  found === 0
    ? 'No bare tool names in string literals.\n'
    : `${found} bare tool name(s)${write ? '; converted the ones with an underscore. Run pnpm format and review the diff.' : '.'}\n`,
);
process.exit(found > 0 && !write ? 1 : 0);
