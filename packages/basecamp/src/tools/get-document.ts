import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { DocumentSchema, lazy, toDocument } from '../shapes.js';
import { basecampTool } from '../toolsets.js';
import { getOne, id, itemProjectId, READS, type ToolDeps } from './shared.js';

const getDocumentShape = lazy(() => ({
  name: 'get_document',
  title: 'Read a document',
  description: `Returns one document from Docs & Files with its whole body as Markdown.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    document_id: id(`Document ID, from ${toolRef('list_documents')} or ${toolRef('search')}`),
  }),
  outputSchema: DocumentSchema,
  annotations: READS,
}));

export const createGetDocument = (deps: ToolDeps) =>
  defineTool({
    ...getDocumentShape(),
    handler: ({ project_id, document_id }, { signal }) =>
      getOne(deps, `/documents/${document_id}.json`, {
        signal,
        scope: {
          projectId: project_id,
          what: `Document ${document_id}`,
          probe: `/documents/${document_id}.json`,
          notFound: `Document ${document_id} was not found, or you have no access to it. Use ${toolRef('list_documents')} to see document IDs.`,
        },
        convert: toDocument,
      }),
  });

export const getDocument = basecampTool(
  { toolset: 'docs', operations: ['GetDocument'], inDefault: true },
  createGetDocument,
);
