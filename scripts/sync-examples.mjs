#!/usr/bin/env node
// Keeps the code samples in the Markdown equal to the type-checked files in docs/examples/.
// A sample is a fenced block right after a marker naming its file:
//
//   <!-- example: docs/examples/mount-sdk-v2.ts -->
//   ```ts
//   ...the file, verbatim...
//   ```
//
//   node scripts/sync-examples.mjs          rewrite the blocks from the files
//   node scripts/sync-examples.mjs --check  exit 1 if any block differs (CI, via pnpm typecheck)
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './lib.mjs';

const check = process.argv.includes('--check');
// The body is every line up to the first one that starts with ``` (so an empty block works too).
const MARKER = /<!-- example: (\S+) -->\n```(\w*)\n((?:(?!```)[^\n]*\n)*)```/g;

function markdownFiles() {
  const files = [join(ROOT, 'README.md')];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  walk(join(ROOT, 'docs'));
  for (const group of ['packages', 'apps']) {
    for (const name of readdirSync(join(ROOT, group))) {
      const readme = join(ROOT, group, name, 'README.md');
      if (existsSync(readme)) files.push(readme);
    }
  }
  return files;
}

const problems = [];
let samples = 0;
for (const file of markdownFiles()) {
  const text = readFileSync(file, 'utf8');
  const synced = text.replace(MARKER, (block, source, language, body) => {
    samples++;
    const path = join(ROOT, source);
    if (!existsSync(path)) {
      problems.push(`${relative(ROOT, file)}: ${source} does not exist`);
      return block;
    }
    const code = `${readFileSync(path, 'utf8').trimEnd()}\n`;
    if (code !== body)
      problems.push(`${relative(ROOT, file)}: the sample from ${source} differs from the file`);
    return `<!-- example: ${source} -->\n\`\`\`${language}\n${code}\`\`\``;
  });
  if (!check && synced !== text) writeFileSync(file, synced);
}

const missing = problems.filter((problem) => problem.includes('does not exist'));
if (check && problems.length > 0) {
  process.stderr.write(
    `${problems.join('\n')}\nRun node scripts/sync-examples.mjs to copy docs/examples/ into the Markdown.\n`,
  );
  process.exit(1);
}
if (missing.length > 0) {
  process.stderr.write(`${missing.join('\n')}\n`);
  process.exit(1);
}
process.stderr.write(`${samples} code samples ${check ? 'match' : 'synced from'} docs/examples/.\n`);
