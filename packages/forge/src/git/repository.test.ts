import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolRegistry } from '@x/mcp-core';
import { type ConnectedClient, connectInMemory, errorBody, resultData } from '@x/mcp-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createForgeProvider } from '../index.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'protocol.file.allow=always', ...args], {
    cwd,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@example.com',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@example.com',
    },
  });

/** Makes git see a file as possibly changed, so `status` must hash it again (through its filter). */
const touchOld = (path: string) => utimesSync(path, new Date('2020-01-01'), new Date('2020-01-01'));

// A vendored repository whose own settings run a command whenever git looks at it: the file
// monitor, a clean filter chosen by its .gitattributes, every hook, and a submodule with a filter
// of its own. Each command leaves a marker file; reading the repository must leave none.
describe('get_repository_context on a repository with hostile settings', () => {
  let workspace: string;
  let markers: string;
  let connection: ConnectedClient;
  const marker = (name: string) => `touch '${join(markers, name)}'`;

  beforeAll(async () => {
    workspace = realpathSync(mkdtempSync(join(tmpdir(), 'forge-hostile-')));
    markers = join(workspace, 'markers');
    mkdirSync(markers);

    const library = join(workspace, 'library');
    git(workspace, 'init', '-q', '-b', 'main', 'library');
    writeFileSync(join(library, 'lib.txt'), 'lib\n');
    writeFileSync(join(library, '.gitattributes'), '* filter=libfilter\n');
    git(library, 'add', '.');
    git(library, 'commit', '-q', '-m', 'library');

    const repo = join(workspace, 'vendored');
    git(workspace, 'init', '-q', '-b', 'main', 'vendored');
    writeFileSync(join(repo, 'a.txt'), 'a\n');
    writeFileSync(join(repo, 'b.bin'), 'b\n');
    writeFileSync(join(repo, '.gitattributes'), '*.txt filter=evil\n*.bin filter=usertool\n');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'initial');
    git(repo, 'submodule', 'add', '-q', join(workspace, 'library'), 'sub');
    git(repo, 'commit', '-q', '-m', 'submodule');

    const hooks = join(workspace, 'hooks');
    mkdirSync(hooks);
    for (const hook of ['post-index-change', 'reference-transaction', 'post-checkout', 'pre-commit']) {
      writeFileSync(join(hooks, hook), `#!/bin/sh\n${marker(`hook-${hook}`)}\n`);
      chmodSync(join(hooks, hook), 0o755);
    }
    git(repo, 'config', 'core.fsmonitor', `${marker('fsmonitor')}; false`);
    git(repo, 'config', 'core.hooksPath', hooks);
    git(repo, 'config', 'filter.evil.clean', `${marker('filter')}; cat`);
    git(join(repo, 'sub'), 'config', 'filter.libfilter.clean', `${marker('submodule-filter')}; cat`);
    git(join(repo, 'sub'), 'config', 'core.fsmonitor', `${marker('submodule-fsmonitor')}; false`);
    // The user's own global filter (Git LFS, say) is theirs, not the repository's: it stays on.
    // Written to the throwaway HOME of src/test-setup.ts, never the developer's: under vitest's
    // threads pool os.homedir() reads the process's real HOME, and afterAll deletes this file.
    if (!homedir().startsWith(tmpdir())) throw new Error(`HOME is not a throwaway directory: ${homedir()}`);
    git(
      workspace,
      'config',
      '--file',
      join(homedir(), '.gitconfig'),
      'filter.usertool.clean',
      `${marker('user-filter')}; cat`,
    );

    connection = await connectInMemory(new ToolRegistry().use(createForgeProvider({ cwd: workspace })));
  });
  afterAll(async () => {
    await connection?.close();
    if (homedir().startsWith(tmpdir())) rmSync(join(homedir(), '.gitconfig'), { force: true });
    rmSync(workspace, { recursive: true, force: true });
  });

  /** Calls the tool; `markers` then lists the commands that ran during the call. */
  const read = async (path: string) => {
    for (const file of ['vendored/a.txt', 'vendored/b.bin', 'vendored/sub/lib.txt'])
      touchOld(join(workspace, file));
    for (const name of readdirSync(markers)) rmSync(join(markers, name)); // left by this test's own git
    return connection.client.callTool({ name: 'get_repository_context', arguments: { path } });
  };
  const ranDuringCall = () => readdirSync(markers).filter((name) => name !== 'user-filter');

  it('runs none of the repository’s commands, and still reports its state', async () => {
    const data = resultData<Record<string, unknown>>(await read('vendored'));
    expect(ranDuringCall()).toEqual([]);
    expect(data).toMatchObject({
      branch: 'main',
      staged: [],
      modified: [],
      untracked: [],
      files: ['.gitattributes', '.gitmodules', 'a.txt', 'b.bin', 'sub'],
    });
  });

  it('keeps the user’s global filter drivers, as the user’s own git would', async () => {
    await read('vendored');
    expect(existsSync(join(markers, 'user-filter'))).toBe(true);
  });

  it('still sees a submodule moved to another commit', async () => {
    const sub = join(workspace, 'vendored', 'sub');
    git(sub, 'commit', '-q', '--allow-empty', '-m', 'moved');
    try {
      const data = resultData<Record<string, unknown>>(await read('vendored'));
      expect(data.modified).toEqual(['sub']);
      expect(ranDuringCall()).toEqual([]);
    } finally {
      git(sub, 'reset', '-q', '--hard', 'HEAD~1');
    }
  });

  it('ignores GIT_* variables of the server’s environment that would point git elsewhere', async () => {
    process.env.GIT_DIR = join(workspace, 'library', '.git');
    process.env.GIT_CONFIG_PARAMETERS = `'core.fsmonitor=${marker('env-fsmonitor')}; false'`;
    try {
      const data = resultData<Record<string, unknown>>(await read('vendored'));
      expect(data.files).toContain('a.txt');
      expect(ranDuringCall()).toEqual([]);
    } finally {
      delete process.env.GIT_DIR;
      delete process.env.GIT_CONFIG_PARAMETERS;
    }
  });

  it('refuses a filter driver whose name cannot be switched off, without running it', async () => {
    const repo = join(workspace, 'vendored');
    git(repo, 'config', 'filter.a=b.clean', `${marker('odd-filter')}; cat`);
    writeFileSync(join(repo, '.git', 'info', 'attributes'), '*.txt filter=a=b\n');
    try {
      const body = errorBody(await read('vendored'));
      expect(body.error_code).toBe('PERMISSION_DENIED');
      expect(body.message).toContain('"a=b"');
      expect(existsSync(join(markers, 'odd-filter'))).toBe(false);
    } finally {
      git(repo, 'config', '--remove-section', 'filter.a=b');
      rmSync(join(repo, '.git', 'info', 'attributes'));
    }
  });
});

// Changing a file's owner needs root; elsewhere git's own check is trusted as is.
describe.skipIf(process.getuid?.() !== 0)('get_repository_context on a repository of another user', () => {
  it('keeps git’s ownership check and says how to allow the repository', async () => {
    const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'forge-foreign-')));
    try {
      git(workspace, 'init', '-q', 'foreign');
      chownSync(join(workspace, 'foreign'), 65534, 65534);
      const connection = await connectInMemory(
        new ToolRegistry().use(createForgeProvider({ cwd: workspace })),
      );
      try {
        const body = errorBody(
          await connection.client.callTool({
            name: 'get_repository_context',
            arguments: { path: 'foreign' },
          }),
        );
        expect(body.error_code).toBe('PERMISSION_DENIED');
        expect(body.message).toContain('git config --global --add safe.directory');
      } finally {
        await connection.close();
      }
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});
