import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../..', import.meta.url));

it('a clean pnpm install of the repository prints no bin warnings (bins link before the first build)', async () => {
  const copy = await mkdtemp(join(tmpdir(), 'first-run-'));
  try {
    // The files a fresh clone has: tracked and new ones, none of node_modules or dist.
    const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
      cwd: root,
      encoding: 'utf8',
    });
    const archive = execFileSync('tar', ['-c', '--null', '--ignore-failed-read', '-T', '-', '-f', '-'], {
      cwd: root,
      input: files,
      maxBuffer: 256 * 1024 * 1024,
    });
    execFileSync('tar', ['-x', '-f', '-'], { cwd: copy, input: archive });
    const install = spawnSync('pnpm', ['install', '--frozen-lockfile', '--prefer-offline'], {
      cwd: copy,
      encoding: 'utf8',
      timeout: 240_000,
      env: { ...process.env, CI: '1' },
    });
    expect(install.status, install.stderr).toBe(0);
    const output = `${install.stdout}${install.stderr}`;
    expect(output).not.toContain('Failed to create bin');
    // The only warning left is packages/hosted's engine (Node >= 22.12) when installing on Node 20.
    const warnings = output.split('\n').filter((line) => line.includes('WARN'));
    expect(warnings.filter((line) => !/packages\/hosted .*Unsupported engine/.test(line))).toEqual([]);
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
}, 300_000);
