import { documentedSettingsProblems } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT, SETTINGS_TABLE } from './environment.js';
import { resolveSettings } from './settings.js';

describe('the variable table', () => {
  it('is what the README and server.json document', () => {
    expect(documentedSettingsProblems(new URL('..', import.meta.url), SETTINGS_TABLE)).toEqual([]);
  });

  it('is what the settings read: every variable takes effect', () => {
    const resolved = resolveSettings({
      env: {
        FORGE_API_URL: 'https://forge.internal.example/api/',
        FORGE_CONFIG_PATH: '/tmp/forge.json',
        FORGE_ACCESS_TOKEN: 'token',
        FORGE_TEAM_ID: 'team',
      },
    });
    expect(resolved).toMatchObject({
      apiUrl: 'https://forge.internal.example/api',
      configPath: '/tmp/forge.json',
      accessToken: 'token',
      teamId: 'team',
    });
    expect(resolveSettings({ env: {} }).apiUrl).toBe(ENVIRONMENT[0]?.default);
    expect(() => resolveSettings({ env: { FORGE_API_URL: 'ftp://x' } })).toThrow(
      'FORGE_API_URL must be an http(s) URL, got "ftp://x". Set it to the Forge API base, e.g. https://www.forge-ai.dev/api.',
    );
  });
});
