import { fileURLToPath } from 'node:url';
import { describeProviderBin, resultText, spawnStdioClient } from '@x/mcp-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS_TABLE } from './environment.js';
import { type FakeNotes, startFakeNotes } from './testing/index.js';
import { VERSION } from './version.js';

// The built bin (`pnpm build` first, as `pnpm test` does): the provider works as a real command.
const binPath = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

let fake: FakeNotes;
beforeAll(async () => {
  fake = await startFakeNotes();
});
afterAll(() => fake.close());

// The checks every provider bin passes (@x/mcp-core/testing): --help, --version, usage errors,
// a clean stdout, --read-only over stdio and HTTP, and the error of a missing token.
describeProviderBin({
  bin: binPath,
  name: 'template-mcp',
  version: VERSION,
  table: SETTINGS_TABLE,
  unconfigured: {
    env: { TEMPLATE_API_URL: undefined, TEMPLATE_TOKEN: undefined },
    tool: 'list_notes',
    message: 'set TEMPLATE_TOKEN',
  },
});

describe('template-mcp bin', () => {
  it('serves the tools over stdio against the API named by TEMPLATE_API_URL', async () => {
    const { client, close } = await spawnStdioClient({
      command: process.execPath,
      args: [binPath],
      env: { TEMPLATE_API_URL: fake.url, TEMPLATE_TOKEN: fake.token },
    });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(['list_notes', 'get_note', 'create_note']);
      const read = await client.callTool({ name: 'get_note', arguments: { id: 2 } });
      expect(resultText(read)).toContain('# Meeting notes');
      expect(fake.requests.at(-1)).toMatchObject({ method: 'GET', path: '/notes/2' });
    } finally {
      await close();
    }
  });

  it('serves its own fake with --sandbox, needing no token', async () => {
    const { client, close } = await spawnStdioClient({
      command: process.execPath,
      args: [binPath, '--sandbox'],
      env: { TEMPLATE_API_URL: undefined, TEMPLATE_TOKEN: undefined },
    });
    try {
      const written = await client.callTool({
        name: 'create_note',
        arguments: { title: 'Hello', body: 'From the sandbox' },
      });
      expect(resultText(written)).toBe('Wrote note #3 "Hello".');
      expect(
        resultText(await client.callTool({ name: 'list_notes', arguments: { contains: 'sandbox' } })),
      ).toMatch(/^#3 Hello \(/);
    } finally {
      await close();
    }
  });
});
