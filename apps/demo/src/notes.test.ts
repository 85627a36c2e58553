import { fileURLToPath } from 'node:url';
import { describeToolProvider, errorBody, resultData, spawnStdioClient } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { createNotesProvider } from './index.js';

describeToolProvider(createNotesProvider);

describe('notes-mcp bin', () => {
  it('serves the notes tools over stdio from the built bin', async () => {
    const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
    const { client, close } = await spawnStdioClient({ command: process.execPath, args: [bin] });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([
        'list_notes',
        'get_note',
        'create_note',
        'delete_note',
      ]);
      const created = resultData<{ id: string }>(
        await client.callTool({ name: 'create_note', arguments: { title: 'A' } }),
      );
      expect(created.id).toBe('n1');
      expect(
        errorBody(await client.callTool({ name: 'create_note', arguments: { title: 'A' } })).error_code,
      ).toBe('CONFLICT');
      const missing = errorBody(await client.callTool({ name: 'get_note', arguments: { id: 'n7' } }));
      expect(missing).toMatchObject({ error_code: 'NOT_FOUND', candidates: ['n1'] });
      expect(missing.message).toContain('Use list_notes');
      expect(
        resultData(await client.callTool({ name: 'delete_note', arguments: { id: 'n1' } })),
      ).toMatchObject({
        deleted: { id: 'n1', title: 'A' },
      });
      expect(resultData(await client.callTool({ name: 'list_notes', arguments: {} }))).toEqual({ notes: [] });
    } finally {
      await close();
    }
  });
});
