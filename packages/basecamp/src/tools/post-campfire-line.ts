import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import { CampfireLineSchema, lazy, toCampfireLine } from '../shapes.js';
import { basecampTool } from '../toolsets.js';
import { CREATES, dockOverride, ITEM_BODY_CHARS, projectId, projectRoute, type ToolDeps } from './shared.js';

const postCampfireLineShape = lazy(() => ({
  name: 'post_campfire_line',
  title: 'Post in a project chat',
  description: `Posts a line of plain text in a project's chat (Campfire).`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    content: z.string().trim().min(1).max(10_000).describe('Plain text'),
    chat_id: dockOverride(),
  }),
  outputSchema: CampfireLineSchema,
  annotations: CREATES,
}));

export const createPostCampfireLine = (deps: ToolDeps) =>
  defineTool({
    ...postCampfireLineShape(),
    handler: async (input, { signal }) => {
      const chat = await deps.docks.resolve(input.project_id, 'chat', input.chat_id, signal);
      const [markdown, response] = await Promise.all([
        deps.markdown(),
        deps.client.request<Record<string, unknown>>(
          'POST',
          projectRoute(deps, input.project_id, `/chats/${chat}/lines.json`),
          {
            body: { content: input.content },
            signal,
            notFound: `Chat ${chat} was not found, or you have no access to it. Use ${toolRef('get_project_tools')} to see the project's chats.`,
          },
        ),
      ]);
      return toCampfireLine(response.data ?? {}, markdown, ITEM_BODY_CHARS);
    },
  });

export const postCampfireLine = basecampTool(
  { toolset: 'chat', operations: ['CreateCampfireLine'], inDefault: true },
  createPostCampfireLine,
);
