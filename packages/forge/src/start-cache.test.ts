import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeStartCache } from '@x/mcp-core/testing';

// A throwaway HOME without a login: list_tickets answers a clear error without any upstream.
const home = mkdtempSync(join(tmpdir(), 'forge-start-cache-'));

describeStartCache({
  name: 'forge-mcp',
  bin: fileURLToPath(new URL('../dist/bin.js', import.meta.url)),
  env: () => ({
    HOME: home,
    USERPROFILE: home,
    FORGE_CONFIG_PATH: join(home, '.forge', 'config.json'),
    FORGE_TOKEN: undefined,
    FORGE_API_URL: 'http://127.0.0.1:9',
  }),
  call: { name: 'list_tickets', arguments: {} },
});
