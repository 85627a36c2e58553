import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { resultText, spawnStdioClient } from '@x/mcp-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeNotes, startFakeNotes } from './testing/index.js';

// The built bin (`pnpm build` first, as `pnpm test` does): the provider works as a real command.
const binPath = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

let fake: FakeNotes;
beforeAll(async () => {
  fake = await startFakeNotes();
});
afterAll(() => fake.close());

describe('template-mcp bin', () => {
  it('prints its help with the variables of the settings table', () => {
    const help = spawnSync(process.execPath, [binPath, '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('template-mcp 0.0.0');
    for (const name of ['TEMPLATE_API_URL', 'TEMPLATE_TOKEN']) expect(help.stdout).toContain(name);
  });

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
