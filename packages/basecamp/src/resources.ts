import { type AnyResourceDefinition, defineResourceTemplate, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import type { PersonRef } from './shapes.js';
import { toDocument, toMessage } from './shapes.js';
import { getOne, itemScope, type ToolDeps } from './tools/shared.js';

const numericId = (what: string) =>
  z
    .string()
    .regex(/^[1-9][0-9]{0,17}$/, 'must be a positive whole number')
    .describe(what);

interface Page {
  title: string;
  author: PersonRef | null;
  created_at: string | null;
  app_url: string | null;
  content: string;
  content_truncated: boolean;
  project?: { name: string } | null;
}

/** The item as a Markdown page: title, who and when, the body, and where it lives in Basecamp. */
function page(item: Page): string {
  const by = [item.author?.name, item.created_at, item.project?.name && `in ${item.project.name}`]
    .filter(Boolean)
    .join(', ');
  return [
    `# ${item.title}`,
    ...(by ? [`_${by}_`] : []),
    item.content + (item.content_truncated ? '\n\n(The body was cut to fit; the rest is in Basecamp.)' : ''),
    ...(item.app_url ? [`[Open in Basecamp](${item.app_url})`] : []),
  ].join('\n\n');
}

/** `basecamp://projects/{project_id}/messages/{message_id}`: a message board post as Markdown. */
const messageResource = (deps: ToolDeps) =>
  defineResourceTemplate({
    name: 'message',
    title: 'Basecamp message',
    description: `One message board post as a Markdown page (title, author, date, body), to attach as context. The IDs come from ${toolRef('list_projects')} and ${toolRef('list_messages')}.`,
    uriTemplate: 'basecamp://projects/{project_id}/messages/{message_id}',
    mimeType: 'text/markdown',
    variables: z.strictObject({
      project_id: numericId('The project ID'),
      message_id: numericId('The message ID'),
    }),
    read: async (_uri, { project_id, message_id }, { signal }) => {
      const path = `/messages/${message_id}.json`;
      const message = await getOne(deps, path, {
        signal,
        scope: itemScope(Number(project_id), `Message ${message_id}`, path, 'list_messages'),
        convert: toMessage,
      });
      return page({ ...message, title: message.subject });
    },
  });

/** `basecamp://projects/{project_id}/documents/{document_id}`: a Docs & Files document as Markdown. */
const documentResource = (deps: ToolDeps) =>
  defineResourceTemplate({
    name: 'document',
    title: 'Basecamp document',
    description: `One Docs & Files document as a Markdown page (title, author, date, body), to attach as context. The IDs come from ${toolRef('list_projects')} and ${toolRef('list_documents')}.`,
    uriTemplate: 'basecamp://projects/{project_id}/documents/{document_id}',
    mimeType: 'text/markdown',
    variables: z.strictObject({
      project_id: numericId('The project ID'),
      document_id: numericId('The document ID'),
    }),
    read: async (_uri, { project_id, document_id }, { signal }) => {
      const path = `/documents/${document_id}.json`;
      const document = await getOne(deps, path, {
        signal,
        scope: itemScope(Number(project_id), `Document ${document_id}`, path, 'list_documents'),
        convert: toDocument,
      });
      return page(document);
    },
  });

/**
 * The resources served beside the tools: a message when the message tools are served, a
 * document when the document tools are.
 */
export function basecampResources(deps: ToolDeps, served: ReadonlySet<string>): AnyResourceDefinition[] {
  return [
    ...(served.has('get_message') ? [messageResource(deps)] : []),
    ...(served.has('get_document') ? [documentResource(deps)] : []),
  ];
}
