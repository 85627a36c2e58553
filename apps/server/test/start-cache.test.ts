import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeStartCache } from '@x/mcp-core/testing';
import { bin } from './helpers.js';

// All four providers from a config file (which the start cache must check), no credentials:
// context-forge's project_list answers from its own (empty) data directory.
const home = mkdtempSync(join(tmpdir(), 'server-start-cache-'));
const dataDir = join(home, 'context-forge');
mkdirSync(dataDir);
const config = join(home, 'config.json');
writeFileSync(
  config,
  JSON.stringify({
    providers: {
      basecamp: { settings: { toolsets: ['projects', 'todos'] } },
      forge: {},
      'context-forge': { settings: { dataDir } },
      'bbj-rag': {},
    },
  }),
);

describeStartCache({
  name: 'x-mcp-server',
  bin,
  args: ['--config', config],
  env: () => ({ HOME: home, USERPROFILE: home, MCP_SERVER_CONFIG: undefined }),
  call: { name: 'context_forge_project_list', arguments: {} },
  configFile: () => config,
});
