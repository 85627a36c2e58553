import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import type { ForgeClient } from '../client/client.js';
import { normalizeTicket } from '../tickets/normalize.js';
import { FileChangeSchema } from '../tickets/schema.js';
import { READS_FORGE, ticketIdSchema, ticketPath } from './shared.js';

export const createGetFileChanges = (client: ForgeClient) =>
  defineTool({
    name: 'get_file_changes',
    title: 'List the files a ticket changes',
    description: `Returns only the planned file changes of a Forge ticket as { ticketId, fileChanges: [{ path, action: create|modify|delete, notes? }] }; an empty list when the ticket plans none. Use it to know which files to touch; ${toolRef('get_ticket_context')} has the whole spec. Take the ticket id from ${toolRef('list_tickets')}.`,
    inputSchema: z.strictObject({ ticketId: ticketIdSchema }),
    outputSchema: z.object({ ticketId: z.string(), fileChanges: z.array(FileChangeSchema) }),
    annotations: READS_FORGE,
    handler: async ({ ticketId }, { signal }) => {
      const raw = await client.request<unknown>('GET', ticketPath(ticketId), { signal, ticketId });
      const ticket = normalizeTicket(raw);
      return { ticketId, fileChanges: ticket.fileChanges };
    },
  });
