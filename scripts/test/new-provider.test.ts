import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// `pnpm new-provider` scaffolds into a throwaway checkout: the template and core linked from this
// one, so the new package can be type-checked, built and tested as it is, without touching this
// repository's packages/ (or its lockfile: `--no-install`; the test links the new package's
// dependencies the way `pnpm install` does).
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = join(ROOT, 'scripts/new-provider.mjs');
const temporary: string[] = [];
afterAll(() => {
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A checkout with the shared files, core and the template linked from this one. */
function checkout({ copyTemplate = false } = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'new-provider-'));
  temporary.push(root);
  mkdirSync(join(root, 'packages'));
  mkdirSync(join(root, '.changeset'));
  for (const shared of [
    'node_modules',
    'biome.json',
    'tsconfig.base.json',
    'tsup.provider.ts',
    'bin-launcher.ts',
    'scripts',
  ]) {
    symlinkSync(join(ROOT, shared), join(root, shared));
  }
  symlinkSync(join(ROOT, 'packages/mcp-core'), join(root, 'packages/mcp-core'));
  // Biome reads the ignore file through git, as in a real checkout.
  spawnSync('git', ['init', '-q'], { cwd: root });
  if (copyTemplate) {
    cpSync(join(ROOT, 'packages/_template'), join(root, 'packages/_template'), {
      recursive: true,
      filter: (source) => !/[\\/](node_modules|dist|\.turbo)$/.test(source),
    });
  } else {
    symlinkSync(join(ROOT, 'packages/_template'), join(root, 'packages/_template'));
  }
  return root;
}

const scaffold = (root: string, ...args: string[]) =>
  spawnSync(process.execPath, [SCRIPT, ...args, '--root', root, '--no-install'], { encoding: 'utf8' });

function filesOf(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesOf(join(dir, entry.name), base) : [relative(base, join(dir, entry.name))],
  );
}

const run = (command: string, args: string[], cwd: string) => {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
};

describe('pnpm new-provider', () => {
  it('scaffolds a package with every name renamed, which type-checks, builds and passes its tests', () => {
    const root = checkout();
    const made = scaffold(root, 'issue-tracker', '--title', 'Issue Tracker');
    expect(made.stderr).toBe('');
    expect(made.status).toBe(0);
    const dir = join(root, 'packages/issue-tracker');
    const files = filesOf(dir);
    // Build output and installs of the template stay behind.
    expect(files.filter((file) => /^(dist|node_modules|\.turbo)\b/.test(file))).toEqual([]);
    expect(files).toContain('bin/issue-tracker-mcp.js');
    expect(files).toContain('src/shape.test.ts');
    for (const file of files) {
      expect(file).not.toMatch(/template/i);
      expect(readFileSync(join(dir, file), 'utf8')).not.toMatch(/template/i);
    }
    // What a composed server reads of it: its id, its title, and a tool prefix in snake case.
    const metadata = readFileSync(join(dir, 'src/metadata.ts'), 'utf8');
    expect(metadata).toContain("id: 'issue-tracker',");
    expect(metadata).toContain("title: 'Issue Tracker',");
    expect(metadata).toContain("prefix: 'issue_tracker_',");
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({
      name: '@x/mcp-issue-tracker',
      description: 'MCP tools for Issue Tracker',
      bin: { 'issue-tracker-mcp': './bin/issue-tracker-mcp.js' },
      publishConfig: { bin: { 'issue-tracker-mcp': './dist/bin.js' } },
      mcpName: 'io.github.x/mcp-issue-tracker',
      homepage: 'https://github.com/x/mcp-tools/tree/main/packages/issue-tracker#readme',
      repository: { directory: 'packages/issue-tracker' },
    });
    expect(manifest.private).toBeUndefined();
    const server = JSON.parse(readFileSync(join(dir, 'server.json'), 'utf8'));
    expect(server).toMatchObject({
      name: 'io.github.x/mcp-issue-tracker',
      title: 'Issue Tracker',
      description: 'MCP tools for Issue Tracker',
      repository: { subfolder: 'packages/issue-tracker' },
      packages: [{ identifier: '@x/mcp-issue-tracker' }],
    });
    expect(
      server.packages[0].environmentVariables.map((variable: { name: string }) => variable.name),
    ).toContain('ISSUE_TRACKER_TOKEN');
    expect(readFileSync(join(dir, 'src/index.ts'), 'utf8')).toContain(
      'export function createIssueTrackerProvider(settings: IssueTrackerSettings = {})',
    );
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toMatch(
      /^# @x\/mcp-issue-tracker\n\nMCP tools for Issue Tracker\.\n/,
    );
    expect(readFileSync(join(root, '.changeset/issue-tracker-first-release.md'), 'utf8')).toBe(
      "---\n'@x/mcp-issue-tracker': minor\n---\n\nFirst release of `@x/mcp-issue-tracker` and its `issue-tracker-mcp` bin: MCP tools for Issue Tracker.\n",
    );

    // What `pnpm install` would link: the template's dependencies, at the same depth.
    cpSync(join(ROOT, 'packages/_template/node_modules'), join(dir, 'node_modules'), {
      recursive: true,
      verbatimSymlinks: true,
      filter: (source) => !source.includes('.vite-temp'),
    });
    const bin = (name: string) => join(ROOT, 'node_modules/.bin', name);
    const typecheck = run(bin('tsc'), ['-p', 'tsconfig.json'], dir);
    expect(typecheck.output.trim()).toBe('');
    expect(typecheck.status).toBe(0);
    const build = run(bin('tsup'), [], dir);
    expect(build.status, build.output).toBe(0);
    const tests = run(bin('vitest'), ['run', '--reporter=dot'], dir);
    expect(tests.status, tests.output).toBe(0);
    expect(tests.output).toMatch(/Tests\s+\d+ passed/);
    expect(tests.output).not.toMatch(/failed|skipped/);
  }, 240_000);

  it('keeps a --private package private and writes no changeset for it', () => {
    const root = checkout();
    const made = scaffold(root, 'notes', '--private', '--description', 'Notes for agents.');
    expect(made.status).toBe(0);
    const manifest = JSON.parse(readFileSync(join(root, 'packages/notes/package.json'), 'utf8'));
    expect(manifest.private).toBe(true);
    expect(manifest.description).toBe('Notes for agents');
    expect(readdirSync(join(root, '.changeset'))).toEqual([]);
  });

  it.each([
    [['Linear'], /"Linear" is not a provider name/],
    [['linear_app'], /not a provider name/],
    [['-x'], /Unknown option|not a provider name/],
    [['my-template'], /renamed along with the template/],
    [['a', 'b'], /one name, got 2/],
    [['core'], /packages\/mcp-core is already called @x\/mcp-core/],
    [['_template'], /not a provider name/],
    [['long', '--description', 'x'.repeat(101)], /101 characters; server.json allows 100/],
  ])('refuses %j and writes nothing', (args, message) => {
    const root = checkout();
    const made = scaffold(root, ...args);
    expect(made.status).toBe(1);
    expect(made.stderr).toMatch(message);
    expect(readdirSync(join(root, 'packages')).sort()).toEqual(['_template', 'mcp-core']);
    expect(readdirSync(join(root, '.changeset'))).toEqual([]);
  });

  it('refuses a name that is taken, and a template text the renaming would leave behind', () => {
    const root = checkout({ copyTemplate: true });
    expect(scaffold(root, 'notes').status).toBe(0);
    const again = scaffold(root, 'notes');
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('packages/notes exists already.');

    writeFileSync(
      join(root, 'packages/_template/src/extra.ts'),
      '// Kept in step with the template by hand.\nexport const x = defineResourceTemplate;\n',
    );
    const left = scaffold(root, 'other');
    expect(left.status).toBe(1);
    expect(left.stderr).toContain('src/extra.ts line 1: // Kept in step with the template by hand.');
    // The SDK's resource templates are not the template's names.
    expect(left.stderr).not.toContain('line 2');
    expect(existsSync(join(root, 'packages/other'))).toBe(false);
  });
});
