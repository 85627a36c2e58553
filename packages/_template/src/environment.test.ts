import { documentedSettingsProblems } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT, SETTINGS_TABLE } from './environment.js';
import { resolveSettings } from './settings.js';

describe('the variable table', () => {
  it('is what the README and server.json document', () => {
    expect(documentedSettingsProblems(new URL('..', import.meta.url), SETTINGS_TABLE)).toEqual([]);
  });

  it('is what the settings read from the env setting, with the defaults it states', async () => {
    const env = { TEMPLATE_API_URL: 'http://notes.internal:8080/api/', TEMPLATE_TOKEN: ' secret ' };
    const resolved = resolveSettings({ env });
    expect(resolved.apiUrl).toBe('http://notes.internal:8080/api');
    expect(await resolved.credentials.current()).toBe('secret');
    const stated = Object.fromEntries(ENVIRONMENT.map((variable) => [variable.name, variable.default]));
    expect(resolveSettings({ env: { TEMPLATE_TOKEN: 't' } }).apiUrl).toBe(stated.TEMPLATE_API_URL);
  });

  it('names the variable when a value is bad or missing', () => {
    expect(() => resolveSettings({ env: { TEMPLATE_API_URL: 'ftp://x', TEMPLATE_TOKEN: 't' } })).toThrow(
      'TEMPLATE_API_URL',
    );
    expect(() => resolveSettings({ env: {} })).toThrow('TEMPLATE_TOKEN');
    expect(() => resolveSettings({ env: { TEMPLATE_TOKEN: 't' }, timeoutMs: 0 })).toThrow('timeoutMs');
  });
});
