import { spawnStdioClient } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { bin } from './helpers.js';

const HARBOR = 'project_1761904800000_h4rb0r7ap';

describe('prompts and resources in the composed server', () => {
  it('serves every provider prompt under its prefix and every resource under its own URI scheme', async () => {
    const { client, close } = await spawnStdioClient({ command: process.execPath, args: [bin, '--sandbox'] });
    try {
      const capabilities = client.getServerCapabilities();
      expect(capabilities?.prompts && capabilities.resources && capabilities.completions).toBeTruthy();
      const { prompts } = await client.listPrompts();
      // In the catalog's order (package.json's).
      expect(prompts.map((prompt) => prompt.name)).toEqual([
        'context_forge_context',
        'context_forge_template',
        'forge_list',
        'forge_execute',
        'forge_develop',
        'forge_review',
        'forge_exec',
      ]);
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((template) => [template.name, template.uriTemplate])).toEqual([
        ['basecamp_message', 'basecamp://projects/{project_id}/messages/{message_id}'],
        ['basecamp_document', 'basecamp://projects/{project_id}/documents/{document_id}'],
        ['context_forge_project', 'context-forge://projects/{id}'],
        ['context_forge_project_context', 'context-forge://projects/{id}/context'],
        ['forge_ticket', 'forge://tickets/{ticketId}'],
      ]);
      const review = await client.getPrompt({ name: 'forge_review', arguments: { ticketId: 'FOR-1' } });
      const text = (review.messages[0]?.content as { text?: string } | undefined)?.text ?? '';
      // The guide names the tools as this server serves them.
      expect(text).toContain('forge_submit_review_session');
      expect(text).not.toMatch(/[^_]submit_review_session/);
      const context = await client.readResource({ uri: `context-forge://projects/${HARBOR}/context` });
      expect(context.contents[0]).toMatchObject({ mimeType: 'text/markdown' });
      const ticket = await client.readResource({ uri: 'forge://tickets/FOR-1' });
      expect((ticket.contents[0] as { text: string }).text).toContain('Dana Developer');
    } finally {
      await close();
    }
  });

  it('applies --read-only and --exclude to prompts and resources as to tools', async () => {
    const { client, close } = await spawnStdioClient({
      command: process.execPath,
      args: [
        bin,
        '--sandbox',
        '--providers',
        'forge,context-forge',
        '--read-only',
        '--exclude',
        'context_forge_template,forge_ticket',
      ],
    });
    try {
      const { prompts } = await client.listPrompts();
      expect(prompts.map((prompt) => prompt.name)).toEqual(['context_forge_context', 'forge_list']);
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((template) => template.name)).toEqual([
        'context_forge_project',
        'context_forge_project_context',
      ]);
    } finally {
      await close();
    }
  });
});
