import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeStartCache } from '@x/mcp-core/testing';

// No token: list_notes answers a clear error without calling any upstream.
const home = mkdtempSync(join(tmpdir(), 'template-start-cache-'));

describeStartCache({
  name: 'template-mcp',
  bin: fileURLToPath(new URL('../dist/bin.js', import.meta.url)),
  env: () => ({
    HOME: home,
    USERPROFILE: home,
    TEMPLATE_TOKEN: undefined,
    TEMPLATE_API_URL: 'http://127.0.0.1:9',
  }),
  call: { name: 'list_notes', arguments: {} },
});
