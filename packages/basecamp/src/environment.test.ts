import { documentedSettingsProblems } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT, SETTINGS_TABLE } from './environment.js';
import { resolveSettings } from './settings.js';

describe('the variable table', () => {
  it('is what the README and server.json document', () => {
    expect(documentedSettingsProblems(new URL('..', import.meta.url), SETTINGS_TABLE)).toEqual([]);
  });

  it('is what the settings read, with the defaults it states', () => {
    const resolved = resolveSettings(
      {
        env: {
          BASECAMP_API_URL: 'http://127.0.0.1:9/',
          BASECAMP_LAUNCHPAD_URL: 'http://127.0.0.1:8',
          BASECAMP_ACCESS_TOKEN: 'token',
          BASECAMP_ACCOUNT_ID: '42',
          BASECAMP_CLIENT_ID: 'id',
          BASECAMP_CLIENT_SECRET: 'secret',
          BASECAMP_TOKEN_FILE: '/tmp/token.json',
          BASECAMP_RATE_LIMIT_REQUESTS: '7',
          BASECAMP_RATE_LIMIT_WINDOW_MS: '700',
          BASECAMP_CONTACT: 'ops@example.com',
        },
      },
      '1.2.3',
    );
    expect(resolved).toMatchObject({
      apiUrl: 'http://127.0.0.1:9',
      launchpadUrl: 'http://127.0.0.1:8',
      accessToken: 'token',
      accountId: '42',
      clientId: 'id',
      clientSecret: 'secret',
      tokenFile: '/tmp/token.json',
      rateLimitRequests: 7,
      rateLimitWindowMs: 700,
      userAgent: '@x/mcp-basecamp/1.2.3 (ops@example.com)',
    });
    const defaults = resolveSettings({ env: { HOME: '/home/x' } }, '1');
    const stated = Object.fromEntries(ENVIRONMENT.map((variable) => [variable.name, variable.default]));
    expect(defaults.apiUrl).toBe(stated.BASECAMP_API_URL);
    expect(defaults.launchpadUrl).toBe(stated.BASECAMP_LAUNCHPAD_URL);
    expect(String(defaults.rateLimitRequests)).toBe(stated.BASECAMP_RATE_LIMIT_REQUESTS);
    expect(String(defaults.rateLimitWindowMs)).toBe(stated.BASECAMP_RATE_LIMIT_WINDOW_MS);
    expect(() => resolveSettings({ env: { BASECAMP_RATE_LIMIT_REQUESTS: '0' } }, '1')).toThrow(
      'BASECAMP_RATE_LIMIT_REQUESTS must be a whole number of at least 1, got "0".',
    );
  });
});
