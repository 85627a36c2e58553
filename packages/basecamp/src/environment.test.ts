import { describeProviderConfig, describeProviderSettings } from '@x/mcp-core/testing';
import { type BasecampConfig, BasecampConfigSchema } from './config.js';
import { SETTINGS_TABLE } from './environment.js';
import { type BasecampSettings, resolveSettings } from './settings.js';

describeProviderSettings<BasecampSettings>({
  packageDir: new URL('..', import.meta.url),
  table: SETTINGS_TABLE,
  resolve: (settings) => resolveSettings(settings, '1.2.3'),
  defaults: { env: { HOME: '/home/x' } },
  reads: [
    {
      settings: {
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
      read: {
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
      },
    },
  ],
  refuses: [
    {
      settings: { env: { BASECAMP_RATE_LIMIT_REQUESTS: '0' } },
      message: 'BASECAMP_RATE_LIMIT_REQUESTS must be a whole number of at least 1, got "0".',
    },
  ],
});

describeProviderConfig<BasecampConfig, BasecampSettings>(BasecampConfigSchema, {
  table: SETTINGS_TABLE,
  accepts: [{ uploadDir: '/srv/files' }],
  refuses: [{ uploadDir: 'files' }],
});
