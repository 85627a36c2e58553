import { describe, expect, it } from 'vitest';
import { useBasecampSession } from './test-session.js';
import { IDS, LAPTOP, LOCATOR } from './testing/index.js';

const session = useBasecampSession('default');

const text = (result: { contents: Array<{ text?: string; blob?: string }> }) =>
  result.contents.map((content) => content.text ?? '').join('');

describe('Basecamp resources', () => {
  it('lists the message and document templates', async () => {
    const { resourceTemplates } = await session.client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      'basecamp://projects/{project_id}/messages/{message_id}',
      'basecamp://projects/{project_id}/documents/{document_id}',
    ]);
    expect(resourceTemplates[0]?.description).toContain('list_messages');
    expect(JSON.stringify(resourceTemplates)).not.toMatch(/[\u2060\u2063]/);
  });

  it('reads a message as a Markdown page from its project', async () => {
    const result = await session.client.readResource({
      uri: `basecamp://projects/${LAPTOP}/messages/${IDS.richMessage}`,
    });
    expect(result.contents[0]?.mimeType).toBe('text/markdown');
    const page = text(result);
    expect(page).toMatch(/^# \S/);
    expect(page).not.toMatch(/<div|<bc-attachment/);
    expect(session.fake.requests.at(-1)?.path).toMatch(
      new RegExp(`/buckets/${LAPTOP}/messages/${IDS.richMessage}\\.json$`),
    );
    expect(page).toContain('# Launch plan');
  });

  it('reads a document', async () => {
    const page = text(
      await session.client.readResource({ uri: `basecamp://projects/${LAPTOP}/documents/${IDS.document}` }),
    );
    expect(page).toContain('# New Hire Info, Benefits Summary, and Forms');
  });

  it('refuses a message from another project, and malformed IDs, as protocol errors', async () => {
    await expect(
      session.client.readResource({ uri: `basecamp://projects/${LOCATOR}/messages/${IDS.richMessage}` }),
    ).rejects.toThrow(/not in project/);
    await expect(
      session.client.readResource({ uri: `basecamp://projects/${LAPTOP}/messages/not-a-number` }),
    ).rejects.toThrow(/positive whole number|not found/i);
  });
});
