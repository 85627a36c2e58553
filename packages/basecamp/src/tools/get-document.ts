import { defineTool } from '@x/mcp-core';
import { z } from 'zod';
import { DocumentSchema, toDocument } from '../shapes.js';
import { getOne, id, READS, type ToolDeps } from './shared.js';

export const createGetDocument = (deps: ToolDeps) =>
  defineTool({
    name: 'get_document',
    title: 'Read a document',
    description:
      'Returns one document from Docs & Files with its whole body as Markdown. Take document_id from list_documents or search.',
    inputSchema: z.strictObject({ document_id: id('Document ID, from list_documents or search') }),
    outputSchema: DocumentSchema,
    annotations: READS,
    handler: ({ document_id }, { signal }) =>
      getOne(deps, `/documents/${document_id}.json`, {
        signal,
        notFound: `Document ${document_id} was not found, or you have no access to it. Use list_documents to see document IDs.`,
        convert: toDocument,
      }),
  });
