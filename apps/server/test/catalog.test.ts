import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PROVIDERS } from '../src/catalog.js';

const manifest = async (path: string) => JSON.parse(await readFile(path, 'utf8'));

/** This package's dependencies that are provider packages: those exporting `./metadata`. */
async function providerDependencies(): Promise<string[]> {
  const own = await manifest(new URL('../package.json', import.meta.url).pathname);
  const names: string[] = [];
  for (const name of Object.keys(own.dependencies ?? {})) {
    const path = new URL(`../node_modules/${name}/package.json`, import.meta.url).pathname;
    if ((await manifest(path)).exports?.['./metadata']) names.push(name);
  }
  return names;
}

describe('the catalog', () => {
  it('is generated from package.json, and the generated module is current', async () => {
    const script = fileURLToPath(new URL('../scripts/providers.mjs', import.meta.url));
    // Exit 0 only when src/providers.generated.ts is what the dependencies make.
    await expect(promisify(execFile)(process.execPath, [script])).resolves.toMatchObject({ stderr: '' });
  });

  it('the check fails on a stale module; --write makes it current from the dependencies alone', async () => {
    const app = fileURLToPath(new URL('..', import.meta.url));
    const copy = await mkdtemp(join(tmpdir(), 'server-catalog-'));
    try {
      await mkdir(join(copy, 'scripts'));
      await mkdir(join(copy, 'src'));
      await copyFile(join(app, 'scripts', 'providers.mjs'), join(copy, 'scripts', 'providers.mjs'));
      await symlink(join(app, 'node_modules'), join(copy, 'node_modules'));
      const own = await manifest(join(app, 'package.json'));
      const [dropped, ...kept] = await providerDependencies();
      // A provider dependency removed: the module still lists it.
      const { [dropped as string]: _, ...dependencies } = own.dependencies;
      await writeFile(join(copy, 'package.json'), JSON.stringify({ ...own, dependencies }));
      const current = await readFile(join(app, 'src', 'providers.generated.ts'), 'utf8');
      await writeFile(join(copy, 'src', 'providers.generated.ts'), current);
      const run = (...args: string[]) =>
        promisify(execFile)(process.execPath, [join(copy, 'scripts', 'providers.mjs'), ...args]);
      await expect(run()).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringContaining('is not current'),
      });
      await run('--write');
      await expect(run()).resolves.toMatchObject({ stderr: '' });
      const written = await readFile(join(copy, 'src', 'providers.generated.ts'), 'utf8');
      expect(written).not.toContain(`'${dropped}/metadata'`);
      for (const name of kept) expect(written).toContain(`'${name}/metadata'`);
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });

  it('lists exactly the provider packages this server depends on, once each', async () => {
    const dependencies = await providerDependencies();
    const listed = await Promise.all(
      dependencies.map(async (name) => (await import(`${name}/metadata`)).metadata),
    );
    expect(dependencies.length).toBeGreaterThan(0);
    expect(new Set(PROVIDERS)).toEqual(new Set(listed));
    expect(PROVIDERS).toHaveLength(dependencies.length);
  });

  it('has metadata a composed server can use: unique ids and prefixes, strict settings, known hosting', () => {
    expect(new Set(PROVIDERS.map((provider) => provider.id)).size).toBe(PROVIDERS.length);
    expect(new Set(PROVIDERS.map((provider) => provider.prefix)).size).toBe(PROVIDERS.length);
    for (const provider of PROVIDERS) {
      expect(provider.id).toMatch(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/);
      expect(provider.prefix).toMatch(/^[a-z0-9_]+_$/);
      expect(['per-user', 'shared', 'local']).toContain(provider.hosted);
      expect(provider.settings.safeParse({}).success).toBe(true);
      expect(provider.settings.safeParse({ surelyNotASetting: 1 }).success).toBe(false);
      const configurable = provider.settingsTable.filter((row) => row.config).map((row) => row.setting);
      expect(Object.keys((provider.settings as unknown as { shape: object }).shape)).toEqual(configurable);
    }
  });
});
