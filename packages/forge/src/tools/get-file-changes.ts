import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import type { ForgeClient } from '../runtime.js';
import { normalizeTicket } from '../tickets/normalize.js';
import { FileChangeSchema } from '../tickets/schema.js';
import { READS_FORGE, ticketIdSchema, ticketPath } from './shared.js';

export const createGetFileChanges = (client: ForgeClient) =>
  defineTool({
    name: 'get_file_changes',
    title: 'List the files a ticket changes',
    description: `Returns only the files a Forge ticket plans to change (path, action, notes); empty when it plans none. The whole spec: ${toolRef('get_ticket_context')}.`,
    inputSchema: z.strictObject({ ticketId: ticketIdSchema }),
    outputSchema: z.object({ ticketId: z.string(), fileChanges: z.array(FileChangeSchema) }),
    annotations: READS_FORGE,
    handler: async ({ ticketId }, { signal }) => {
      const raw = await client.request<unknown>('GET', ticketPath(ticketId), { signal, ticketId });
      const ticket = normalizeTicket(raw);
      return { ticketId, fileChanges: ticket.fileChanges };
    },
  });
