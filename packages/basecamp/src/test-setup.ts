import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Every test file runs with a throwaway HOME, config dir and token file, so nothing can read or
// write the developer's real Basecamp login, even a test that forgets to pass its own path.
const home = mkdtempSync(join(tmpdir(), 'basecamp-mcp-test-home-'));
process.env.HOME = home;
process.env.USERPROFILE = home;
process.env.XDG_CONFIG_HOME = join(home, '.config');
process.env.APPDATA = join(home, 'AppData');
process.env.BASECAMP_TOKEN_FILE = join(home, 'basecamp-token.json');
for (const name of [
  'BASECAMP_ACCESS_TOKEN',
  'BASECAMP_ACCOUNT_ID',
  'BASECAMP_API_URL',
  'BASECAMP_LAUNCHPAD_URL',
  'BASECAMP_CLIENT_ID',
  'BASECAMP_CLIENT_SECRET',
  'BASECAMP_REDIRECT_URI',
  'BASECAMP_RATE_LIMIT_REQUESTS',
  'BASECAMP_RATE_LIMIT_WINDOW_MS',
  'BASECAMP_TOOLSETS',
]) {
  delete process.env[name];
}
