import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadOpenApi } from './document.js';
import {
  coverageMarkdown,
  coverageProblems,
  SIZES_END,
  SIZES_START,
  sizesMarkdown,
  toolListSizes,
  toolsetNamesModule,
} from './reports.js';

// The generated docs: `pnpm --filter @x/mcp-basecamp generate-docs` (BASECAMP_WRITE_DOCS=1) rewrites them;
// otherwise these tests fail when they are stale.
const write = process.env.BASECAMP_WRITE_DOCS === '1';
const coverageFile = fileURLToPath(
  new URL('../../../../docs/providers/basecamp-coverage.md', import.meta.url),
);
const readmeFile = fileURLToPath(new URL('../../README.md', import.meta.url));
const namesFile = fileURLToPath(new URL('../toolset-names.ts', import.meta.url));
const sdkVersion = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    devDependencies: Record<string, string>;
  }
).devDependencies['@37signals/basecamp'] as string;

describe('coverage of the OpenAPI document', () => {
  const document = loadOpenApi();

  it('accounts for every operation exactly once: reached by a tool, or excluded with a reason', () => {
    expect(document.operations.length).toBeGreaterThan(150);
    expect(coverageProblems(document)).toEqual([]);
  });

  it('is published, up to date, in docs/providers/basecamp-coverage.md', () => {
    const expected = coverageMarkdown(document, sdkVersion);
    if (write) writeFileSync(coverageFile, expected);
    expect(readFileSync(coverageFile, 'utf8')).toBe(expected);
  });
});

describe('tools/list size', () => {
  it('is published, up to date, in the README', () => {
    const sizes = toolListSizes();
    expect(sizes.find((size) => size.name === 'default')?.tools).toBeLessThanOrEqual(25);
    const readme = readFileSync(readmeFile, 'utf8');
    const start = readme.indexOf(SIZES_START);
    const end = readme.indexOf(SIZES_END);
    expect(start).toBeGreaterThan(0);
    expect(end).toBeGreaterThan(start);
    const updated = `${readme.slice(0, start)}${sizesMarkdown(sizes)}${readme.slice(end + SIZES_END.length)}`;
    if (write) writeFileSync(readmeFile, updated);
    expect(readFileSync(readmeFile, 'utf8')).toBe(updated);
  });
});

describe('src/toolset-names.ts', () => {
  it('names every tool of every toolset, as the specs build them', () => {
    const expected = toolsetNamesModule();
    if (write) writeFileSync(namesFile, expected);
    expect(readFileSync(namesFile, 'utf8')).toBe(expected);
  });
});
