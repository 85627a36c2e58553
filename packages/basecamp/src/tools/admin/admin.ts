import { defineTool, InvalidInputError, toolRef } from '@x/mcp-core';
import { sleep } from '@x/mcp-core/upstream';
import { z } from 'zod';
import { lazy, listSchema, number, ProjectSchema, record, records, text, toProject } from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import {
  CREATES,
  DESTROYS,
  id,
  itemProjectId,
  itemRoute,
  limit,
  listPage,
  page,
  projectId,
  READS,
  SETS_STATE,
  type ToolDeps,
} from '../shared.js';

type Raw = Record<string, unknown>;

const WebhookSchema = lazy(() =>
  z.object({
    id: z.number(),
    payload_url: z.string(),
    types: z.array(z.string()).describe('Recording types it reports, e.g. "Todo", "Message"; empty: all'),
    active: z.boolean(),
    created_at: z.string().nullable(),
  }),
);
const toWebhook = (raw: Raw): z.infer<ReturnType<typeof WebhookSchema>> => ({
  id: number(raw.id) ?? 0,
  payload_url: text(raw.payload_url) ?? '',
  types: (Array.isArray(raw.types) ? raw.types : []).filter(
    (type): type is string => typeof type === 'string',
  ),
  active: raw.active === true,
  created_at: text(raw.created_at),
});
const payloadUrl = () =>
  z
    .url({ protocol: /^https$/ })
    .max(2_000)
    .describe('Where Basecamp POSTs each event (https only)');
const types = () =>
  z
    .array(z.string().min(1).max(100))
    .max(50)
    .describe('Recording types to report, e.g. ["Todo", "Message"]; [] for all');
const webhookNotFound = (webhookId: number) =>
  `Webhook ${webhookId} was not found, or you have no access to it. Use ${toolRef('list_webhooks')} to see webhook IDs.`;

const listWebhooksShape = lazy(() => ({
  name: 'list_webhooks',
  title: "List a project's webhooks",
  description: `Lists a project's webhooks: URL, event types and whether each is active.`,
  inputSchema: z.strictObject({ project_id: projectId() }),
  outputSchema: z.object({ items: z.array(WebhookSchema()) }),
  annotations: READS,
}));

export const createListWebhooks = (deps: ToolDeps) =>
  defineTool({
    ...listWebhooksShape(),
    handler: async (input, { signal }) => {
      const data = (
        await deps.client.get<unknown>(`/buckets/${input.project_id}/webhooks.json`, {
          signal,
          notFound: `Project ${input.project_id} was not found, or you cannot manage its webhooks. Use ${toolRef('list_projects')} to see project IDs.`,
        })
      ).data;
      return {
        items: records(data).map(toWebhook),
      };
    },
  });

const createWebhookShape = lazy(() => ({
  name: 'create_webhook',
  title: 'Add a webhook',
  description: `Adds a webhook to a project: Basecamp POSTs to payload_url (https) when an item of the given types changes. Needs admin rights on the project.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    payload_url: payloadUrl(),
    types: types().default([]),
  }),
  outputSchema: WebhookSchema(),
  annotations: CREATES,
}));

export const createCreateWebhook = (deps: ToolDeps) =>
  defineTool({
    ...createWebhookShape(),
    handler: async (input, { signal }) => {
      const response = await deps.client.request<Raw>('POST', `/buckets/${input.project_id}/webhooks.json`, {
        body: { payload_url: input.payload_url, types: input.types },
        signal,
        notFound: `Project ${input.project_id} was not found, or you cannot manage its webhooks. Use ${toolRef('list_projects')} to see project IDs.`,
      });
      return toWebhook(response.data ?? {});
    },
  });

const updateWebhookShape = lazy(() => ({
  name: 'update_webhook',
  title: 'Change a webhook',
  description: `Changes a webhook's URL or event types, or pauses / resumes it (active).`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    webhook_id: id(`Webhook ID, from ${toolRef('list_webhooks')}`),
    payload_url: payloadUrl().optional(),
    types: types().optional(),
    active: z.boolean().optional().describe('false: pause deliveries; true: resume'),
  }),
  outputSchema: WebhookSchema(),
  annotations: SETS_STATE,
}));

export const createUpdateWebhook = (deps: ToolDeps) =>
  defineTool({
    ...updateWebhookShape(),
    handler: async (input, { signal }) => {
      const { project_id: project, webhook_id: webhookId, ...changes } = input;
      if (Object.keys(changes).length === 0)
        throw new InvalidInputError('Nothing to change: pass payload_url, types or active.');
      const path = itemRoute(deps, project, `Webhook ${webhookId}`, `/webhooks/${webhookId}.json`);
      const response = await deps.client.request<Raw>('PUT', path, {
        body: changes,
        signal,
        notFound: webhookNotFound(webhookId),
      });
      return toWebhook(response.data ?? {});
    },
  });

const deleteWebhookShape = lazy(() => ({
  name: 'delete_webhook',
  title: 'Delete a webhook',
  description: `Deletes a webhook for good; Basecamp stops sending to its URL.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    webhook_id: id(`Webhook ID, from ${toolRef('list_webhooks')}`),
  }),
  outputSchema: z.object({ webhook_id: z.number(), deleted: z.literal(true) }),
  annotations: DESTROYS,
}));

export const createDeleteWebhook = (deps: ToolDeps) =>
  defineTool({
    ...deleteWebhookShape(),
    confirm: (input) => `Delete webhook ${input.webhook_id} for good? Basecamp stops sending to its URL.`,
    handler: async (input, { signal }) => {
      const path = itemRoute(
        deps,
        input.project_id,
        `Webhook ${input.webhook_id}`,
        `/webhooks/${input.webhook_id}.json`,
      );
      await deps.client.request('DELETE', path, {
        signal,
        notFound: webhookNotFound(input.webhook_id),
      });
      return { webhook_id: input.webhook_id, deleted: true as const };
    },
  });

const TemplateSchema = lazy(() =>
  z.object({
    id: z.number(),
    name: z.string(),
    status: z.string(),
    app_url: z.string().nullable(),
  }),
);
const toTemplate = (raw: Raw): z.infer<ReturnType<typeof TemplateSchema>> => ({
  id: number(raw.id) ?? 0,
  name: text(raw.name) ?? '',
  status: text(raw.status) ?? 'active',
  app_url: text(raw.app_url),
});
const templateId = () => id(`Template ID, from ${toolRef('list_templates')}`);
const templateNotFound = (template: number) =>
  `Template ${template} was not found, or you have no access to it. Use ${toolRef('list_templates')} to see template IDs.`;

const listTemplatesShape = lazy(() => ({
  name: 'list_templates',
  title: 'List project templates',
  description: `Lists the account's project templates; create a project from one with ${toolRef('create_project_from_template')}.`,
  inputSchema: z.strictObject({
    status: z
      .enum(['active', 'archived', 'trashed'])
      .default('active')
      .describe('Archived or trashed ones instead'),
    page: page(),
    limit: limit(50),
  }),
  outputSchema: listSchema(TemplateSchema()),
  annotations: READS,
}));

export const createListTemplates = (deps: ToolDeps) =>
  defineTool({
    ...listTemplatesShape(),
    handler: (input, { signal }) =>
      listPage(deps, '/templates.json', {
        query: { status: input.status === 'active' ? undefined : input.status },
        page: input.page,
        limit: input.limit,
        signal,
        notFound: 'Basecamp found no templates.',
        convert: (raw) => toTemplate(raw),
      }),
  });

const createTemplateShape = lazy(() => ({
  name: 'create_template',
  title: 'Create a project template',
  description: 'Creates an empty project template (fill it in Basecamp).',
  inputSchema: z.strictObject({ name: z.string().trim().min(1).max(200).describe("The template's name") }),
  outputSchema: TemplateSchema(),
  annotations: CREATES,
}));

export const createCreateTemplate = (deps: ToolDeps) =>
  defineTool({
    ...createTemplateShape(),
    handler: async (input, { signal }) => {
      const response = await deps.client.request<Raw>('POST', '/templates.json', {
        body: { name: input.name },
        signal,
      });
      return toTemplate(response.data ?? {});
    },
  });

const renameTemplateShape = lazy(() => ({
  name: 'rename_template',
  title: 'Rename a project template',
  description: `Renames a project template.`,
  inputSchema: z.strictObject({
    template_id: templateId(),
    name: z.string().trim().min(1).max(200).describe('New name'),
  }),
  outputSchema: TemplateSchema(),
  annotations: SETS_STATE,
}));

export const createRenameTemplate = (deps: ToolDeps) =>
  defineTool({
    ...renameTemplateShape(),
    handler: async (input, { signal }) => {
      const response = await deps.client.request<Raw>('PUT', `/templates/${input.template_id}.json`, {
        body: { name: input.name },
        signal,
        notFound: templateNotFound(input.template_id),
      });
      return toTemplate(response.data ?? {});
    },
  });

const trashTemplateShape = lazy(() => ({
  name: 'trash_template',
  title: 'Trash a project template',
  description: `Moves a project template to the trash. Projects made from it stay.`,
  inputSchema: z.strictObject({ template_id: templateId() }),
  outputSchema: z.object({ template_id: z.number(), trashed: z.literal(true) }),
  annotations: DESTROYS,
}));

export const createTrashTemplate = (deps: ToolDeps) =>
  defineTool({
    ...trashTemplateShape(),
    confirm: (input) => `Trash project template ${input.template_id}? Projects made from it stay.`,
    handler: async (input, { signal }) => {
      await deps.client.request('DELETE', `/templates/${input.template_id}.json`, {
        signal,
        notFound: templateNotFound(input.template_id),
      });
      return { template_id: input.template_id, trashed: true as const };
    },
  });

const ConstructionSchema = lazy(() =>
  z.object({
    construction_id: z.number(),
    status: z.string().describe('"pending" while Basecamp copies the template, then "completed"'),
    project: ProjectSchema.nullable().describe('The new project, once completed'),
  }),
);
const toConstruction = (raw: Raw): z.infer<ReturnType<typeof ConstructionSchema>> => {
  const project = record(raw.project);
  return {
    construction_id: number(raw.id) ?? 0,
    status: text(raw.status) ?? 'pending',
    project: project ? toProject(project) : null,
  };
};

const createProjectFromTemplateShape = lazy(() => ({
  name: 'create_project_from_template',
  title: 'Create a project from a template',
  description: `Creates a project from a template (Basecamp copies it in the background). Run as a task (when the client asks for one) it answers once the project exists; otherwise the answer's status may be "pending": then poll ${toolRef('get_project_construction')}.`,
  inputSchema: z.strictObject({
    template_id: templateId(),
    name: z.string().trim().min(1).max(200).describe("The new project's name"),
  }),
  outputSchema: ConstructionSchema(),
  annotations: CREATES,
  // Copying a large template can take minutes: a client that can poll a task gets one.
  task: 'optional' as const,
  timeoutMs: 15 * 60_000,
}));

export const createCreateProjectFromTemplate = (deps: ToolDeps) =>
  defineTool({
    ...createProjectFromTemplateShape(),
    handler: async (input, { signal, task }) => {
      const response = await deps.client.request<Raw>(
        'POST',
        `/templates/${input.template_id}/project_constructions.json`,
        {
          body: { name: input.name },
          signal,
          notFound: templateNotFound(input.template_id),
        },
      );
      let construction = toConstruction(response.data ?? {});
      // As a task nobody waits on the answer: follow the construction until it is done (or the
      // task is cancelled, which aborts the wait and the request).
      while (task && construction.status === 'pending') {
        await sleep(deps.client.settings.constructionPollMs, signal);
        construction = await getConstruction(deps, input.template_id, construction.construction_id, signal);
      }
      return construction;
    },
  });

async function getConstruction(
  deps: ToolDeps,
  templateId: number,
  constructionId: number,
  signal: AbortSignal,
) {
  const response = await deps.client.get<Raw>(
    `/templates/${templateId}/project_constructions/${constructionId}.json`,
    { signal, notFound: `Construction ${constructionId} of template ${templateId} was not found.` },
  );
  return toConstruction(response.data ?? {});
}

const getProjectConstructionShape = lazy(() => ({
  name: 'get_project_construction',
  title: 'Check a project being created from a template',
  description: `Says whether a project started with ${toolRef('create_project_from_template')} is "completed" (with the project) or still "pending".`,
  inputSchema: z.strictObject({
    template_id: templateId(),
    construction_id: id(`Construction ID, from ${toolRef('create_project_from_template')}`),
  }),
  outputSchema: ConstructionSchema(),
  annotations: READS,
}));

export const createGetProjectConstruction = (deps: ToolDeps) =>
  defineTool({
    ...getProjectConstructionShape(),
    handler: (input, { signal }) => getConstruction(deps, input.template_id, input.construction_id, signal),
  });

export const listWebhooks = basecampTool(
  { toolset: 'admin', operations: ['ListWebhooks'] },
  createListWebhooks,
);
export const createWebhook = basecampTool(
  { toolset: 'admin', operations: ['CreateWebhook'] },
  createCreateWebhook,
);
export const updateWebhook = basecampTool(
  { toolset: 'admin', operations: ['UpdateWebhook'] },
  createUpdateWebhook,
);
export const deleteWebhook = basecampTool(
  { toolset: 'admin', operations: ['DeleteWebhook'] },
  createDeleteWebhook,
);
export const listTemplates = basecampTool(
  { toolset: 'admin', operations: ['ListTemplates'] },
  createListTemplates,
);
export const createTemplate = basecampTool(
  { toolset: 'admin', operations: ['CreateTemplate'] },
  createCreateTemplate,
);
export const renameTemplate = basecampTool(
  { toolset: 'admin', operations: ['UpdateTemplate'] },
  createRenameTemplate,
);
export const trashTemplate = basecampTool(
  { toolset: 'admin', operations: ['DeleteTemplate'] },
  createTrashTemplate,
);
export const createProjectFromTemplate = basecampTool(
  { toolset: 'projects', operations: ['CreateProjectFromTemplate'] },
  createCreateProjectFromTemplate,
);
export const getProjectConstruction = basecampTool(
  { toolset: 'projects', operations: ['GetProjectConstruction'] },
  createGetProjectConstruction,
);
