import { defineTool, InvalidInputError } from '@x/mcp-core';
import { z } from 'zod';
import type { ProjectStore } from '../store/project-store.js';
import { withOutsideChanges } from './outside-change.js';
import { projectFields, projectIdSchema, projectOutput } from './schemas.js';

const FIELDS = Object.keys(projectFields);

export const createProjectUpdate = (store: () => ProjectStore) =>
  defineTool({
    name: 'project_update',
    title: 'Update a Context Forge project',
    description:
      'Changes the given fields of one project (the others keep their values; customData is merged key by key) ' +
      'and returns the project as stored. The desktop app sees the change at once.',
    inputSchema: z.strictObject({ id: projectIdSchema, ...z.object(projectFields).partial().shape }),
    outputSchema: projectOutput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async ({ id, ...changes }) => {
      const given = Object.entries(changes).filter(
        ([key, value]) => value !== undefined && !(key === 'customData' && Object.keys(value).length === 0),
      );
      if (given.length === 0) {
        throw new InvalidInputError(
          `No fields to update. Give at least one of: ${FIELDS.join(', ')} (customData with at least one key).`,
        );
      }
      const { project, outsideChange } = await store().updateReporting(id, changes);
      return withOutsideChanges(project, [outsideChange], { beforeThisWrite: true });
    },
  });
