import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROVIDER_IDS } from '../src/catalog.js';
import { loadConfig, parseConfig } from '../src/config.js';

describe('the config file', () => {
  it('accepts providers with prefixes, filters, read-only and settings', () => {
    const config = parseConfig({
      prefix: true,
      readOnly: false,
      providers: {
        forge: {
          prefix: 'f_',
          include: ['get_*'],
          readOnly: true,
          settings: { apiUrl: 'https://forge.example/api' },
        },
        'context-forge': { prefix: false, settings: { dataDir: '/srv/cf' } },
        'bbj-rag': {},
      },
    });
    expect(config.providers?.forge).toEqual({
      prefix: 'f_',
      include: ['get_*'],
      readOnly: true,
      settings: { apiUrl: 'https://forge.example/api' },
    });
  });

  it('names every bad key: unknown providers and keys, wrong types, bad URLs and prefixes', () => {
    const error = (() => {
      try {
        parseConfig(
          {
            prefixes: true,
            providers: {
              jira: {},
              forge: { include: 'get_*', settings: { apiUrl: 'ftp://x', token: 'secret' } },
              'bbj-rag': { prefix: 'bad prefix!' },
            },
          },
          'server.json',
        );
      } catch (caught) {
        return caught as Error & { code?: string };
      }
      throw new Error('expected a config error');
    })();
    expect(error.code).toBe('TOOL_NOT_ENABLED');
    const lines = error.message.split('\n');
    expect(lines[0]).toBe('Invalid config in server.json:');
    expect(lines).toContain('  - prefixes: unknown key');
    expect(lines).toContain(`  - providers.jira: unknown provider (known: ${PROVIDER_IDS.join(', ')})`);
    expect(lines).toContain('  - providers.forge.settings.token: unknown key');
    expect(
      lines.some((line) => line.startsWith('  - providers.forge.include: Invalid input: expected array')),
    ).toBe(true);
    expect(lines.some((line) => line.startsWith('  - providers.forge.settings.apiUrl:'))).toBe(true);
    expect(lines).toContain('  - providers.bbj-rag.prefix: may only contain letters, digits, _ and -');
  });

  it('reads a file, resolving relative paths against it, and reports unreadable or non-JSON files', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'server-config-'));
    const file = join(dir, 'server.json');
    await writeFile(
      file,
      JSON.stringify({
        providers: {
          'context-forge': { settings: { dataDir: './data' } },
          'bbj-rag': { settings: { compilerPath: 'bbjcpl' } },
          forge: { settings: { configPath: 'secrets/forge.json' } },
        },
      }),
    );
    const config = await loadConfig(file);
    expect(config.providers?.['context-forge']?.settings?.dataDir).toBe(join(dir, 'data'));
    expect(config.providers?.forge?.settings?.configPath).toBe(join(dir, 'secrets/forge.json'));
    expect(config.providers?.['bbj-rag']?.settings?.compilerPath).toBe('bbjcpl');

    await writeFile(file, '{ "providers": ');
    await expect(loadConfig(file)).rejects.toThrow(`The config file ${file} is not valid JSON`);
    await expect(loadConfig(join(dir, 'missing.json'))).rejects.toThrow('Cannot read the config file');
  });
});
