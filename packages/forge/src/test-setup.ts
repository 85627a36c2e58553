import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Every test file runs with a throwaway HOME and config path, so nothing can read or write the
// developer's real ~/.forge, even a test that forgets to pass its own path.
const home = mkdtempSync(join(tmpdir(), 'forge-mcp-test-home-'));
process.env.HOME = home;
process.env.USERPROFILE = home;
process.env.FORGE_CONFIG_PATH = join(home, '.forge', 'config.json');
delete process.env.FORGE_ACCESS_TOKEN;
delete process.env.FORGE_TEAM_ID;
delete process.env.FORGE_API_URL;
