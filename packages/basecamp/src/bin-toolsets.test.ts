import { fileURLToPath } from 'node:url';
import { spawnStdioClient } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { createBasecampProvider } from './index.js';

describe('basecamp-mcp --toolsets in the form connection URLs use', () => {
  const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
  const served = async (toolsets: string) => {
    const { client, close } = await spawnStdioClient({
      command: process.execPath,
      args: [bin, '--sandbox', '--toolsets', toolsets],
    });
    try {
      return (await client.listTools()).tools.map((tool) => tool.name);
    } finally {
      await close();
    }
  };

  it('takes basecamp.<toolset> for <toolset>, and basecamp for all', async () => {
    const names = (toolsets: string) =>
      createBasecampProvider({ env: {}, toolsets }).tools.map((tool) => tool.name);
    expect(await served('basecamp.chat,todos')).toEqual(names('chat,todos'));
    expect(await served('basecamp')).toEqual(names('all'));
  });
});
