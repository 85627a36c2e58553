import { defineTool, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import type { HtmlToMarkdown } from '../../markdown/html-to-markdown.js';
import { body, lazy, number, record, records, text } from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import {
  CREATES,
  DESTROYS,
  ITEM_BODY_CHARS,
  id,
  itemProjectId,
  itemRoute,
  positiveId,
  projectId,
  READS,
  richText,
  SETS_STATE,
  type ToolDeps,
} from '../shared.js';

type Raw = Record<string, unknown>;

const GaugeSchema = lazy(() =>
  z.object({
    project: z.object({ id: z.number(), name: z.string() }).nullable(),
    position: z.number().nullable().describe('Latest needle, 0-100 (% done)'),
    previous_position: z.number().nullable(),
    color: z.string().nullable().describe('green, yellow or red'),
  }),
);
const NeedleSchema = lazy(() =>
  z.object({
    id: z.number(),
    position: z.number(),
    color: z.string(),
    description: z.string(),
    created_at: z.string().nullable(),
  }),
);
const toNeedle = (raw: Raw, markdown: HtmlToMarkdown): z.infer<ReturnType<typeof NeedleSchema>> => ({
  id: number(raw.id) ?? 0,
  position: number(raw.position) ?? 0,
  color: text(raw.color) ?? '',
  description: body(markdown, raw.description, ITEM_BODY_CHARS).text,
  created_at: text(raw.created_at),
});
const needleNotFound = (needle: number) =>
  `Gauge needle ${needle} was not found. Use ${toolRef('list_gauge_needles')} to see needle IDs.`;
const projectNotFound = (project: number) =>
  `Project ${project} was not found, or you have no access to it. Use ${toolRef('list_projects')} to see project IDs.`;

const listGaugesShape = lazy(() => ({
  name: 'list_gauges',
  title: 'Project progress gauges',
  description: `Lists the progress gauges (0-100, previous reading, color) of projects that have one switched on.`,
  inputSchema: z.strictObject({
    project_ids: z.array(positiveId()).max(50).optional().describe('Only these projects'),
  }),
  outputSchema: z.object({ items: z.array(GaugeSchema()) }),
  annotations: READS,
}));

export const createListGauges = (deps: ToolDeps) =>
  defineTool({
    ...listGaugesShape(),
    handler: async (input, { signal }) => {
      const data = (
        await deps.client.get<unknown>('/reports/gauges.json', {
          signal,
          ...(input.project_ids ? { query: { bucket_ids: input.project_ids.join(',') } } : {}),
        })
      ).data;
      return {
        items: records(data).map((raw) => {
          const bucket = record(raw.bucket);
          return {
            project:
              bucket && number(bucket.id) !== null
                ? { id: number(bucket.id) as number, name: text(bucket.name) ?? '' }
                : null,
            position: number(raw.last_needle_position),
            previous_position: number(raw.previous_needle_position),
            color: text(raw.last_needle_color),
          };
        }),
      };
    },
  });

const setGaugeShape = lazy(() => ({
  name: 'set_gauge',
  title: "Switch a project's gauge on or off",
  description: `Switches a project's progress gauge on (enabled: true) or off.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    enabled: z.boolean().describe('true: show the gauge; false: hide it'),
  }),
  outputSchema: z.object({ project_id: z.number(), enabled: z.boolean() }),
  annotations: SETS_STATE,
}));

export const createSetGauge = (deps: ToolDeps) =>
  defineTool({
    ...setGaugeShape(),
    handler: async (input, { signal }) => {
      await deps.client.request('PUT', `/projects/${input.project_id}/gauge.json`, {
        body: { gauge: { enabled: input.enabled } },
        signal,
        notFound: projectNotFound(input.project_id),
      });
      return { project_id: input.project_id, enabled: input.enabled };
    },
  });

const listGaugeNeedlesShape = lazy(() => ({
  name: 'list_gauge_needles',
  title: "A project's progress readings",
  description:
    "Lists a project's gauge needles (progress readings), newest first, with position, color and note as Markdown.",
  inputSchema: z.strictObject({ project_id: projectId() }),
  outputSchema: z.object({ items: z.array(NeedleSchema()) }),
  annotations: READS,
}));

export const createListGaugeNeedles = (deps: ToolDeps) =>
  defineTool({
    ...listGaugeNeedlesShape(),
    handler: async (input, { signal }) => {
      const [markdown, response] = await Promise.all([
        deps.markdown(),
        deps.client.get<unknown>(`/projects/${input.project_id}/gauge/needles.json`, {
          signal,
          notFound: projectNotFound(input.project_id),
        }),
      ]);
      return { items: records(response.data).map((raw) => toNeedle(raw, markdown)) };
    },
  });

const addGaugeNeedleShape = lazy(() => ({
  name: 'add_gauge_needle',
  title: 'Record project progress',
  description: `Records how far along a project is (position 0-100) with a color and an optional note. The project's gauge must be on (${toolRef('set_gauge')}).`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    position: z.number().int().min(0).max(100).describe('Percent done, 0-100'),
    color: z.enum(['green', 'yellow', 'red']).default('green').describe('Needle colour'),
    description: richText('What changed.', 10_000).optional(),
  }),
  outputSchema: NeedleSchema(),
  annotations: CREATES,
}));

export const createAddGaugeNeedle = (deps: ToolDeps) =>
  defineTool({
    ...addGaugeNeedleShape(),
    handler: async (input, { signal }) => {
      const [markdown, html] = await Promise.all([deps.markdown(), deps.html()]);
      const response = await deps.client.request<Raw>(
        'POST',
        `/projects/${input.project_id}/gauge/needles.json`,
        {
          body: {
            gauge_needle: {
              position: input.position,
              color: input.color,
              ...(input.description === undefined ? {} : { description: html(input.description) }),
            },
          },
          signal,
          notFound: projectNotFound(input.project_id),
        },
      );
      return toNeedle(response.data ?? {}, markdown);
    },
  });

const updateGaugeNeedleShape = lazy(() => ({
  name: 'update_gauge_needle',
  title: 'Edit a progress note',
  description: `Replaces the note (Markdown) of a gauge needle.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    needle_id: id(`Needle ID, from ${toolRef('list_gauge_needles')}`),
    description: richText('The new note.', 10_000),
  }),
  outputSchema: NeedleSchema(),
  annotations: SETS_STATE,
}));

export const createUpdateGaugeNeedle = (deps: ToolDeps) =>
  defineTool({
    ...updateGaugeNeedleShape(),
    handler: async (input, { signal }) => {
      const [markdown, html] = await Promise.all([deps.markdown(), deps.html()]);
      const path = itemRoute(
        deps,
        input.project_id,
        `Needle ${input.needle_id}`,
        `/gauge_needles/${input.needle_id}.json`,
      );
      const response = await deps.client.request<Raw>('PUT', path, {
        body: { gauge_needle: { description: html(input.description) } },
        signal,
        notFound: needleNotFound(input.needle_id),
      });
      return toNeedle(response.data ?? {}, markdown);
    },
  });

const deleteGaugeNeedleShape = lazy(() => ({
  name: 'delete_gauge_needle',
  title: 'Delete a progress reading',
  description: `Deletes a gauge needle.`,
  inputSchema: z.strictObject({
    project_id: itemProjectId(),
    needle_id: id(`Needle ID, from ${toolRef('list_gauge_needles')}`),
  }),
  outputSchema: z.object({ needle_id: z.number(), deleted: z.literal(true) }),
  annotations: DESTROYS,
}));

export const createDeleteGaugeNeedle = (deps: ToolDeps) =>
  defineTool({
    ...deleteGaugeNeedleShape(),
    confirm: (input) => `Delete progress reading (gauge needle) ${input.needle_id}?`,
    handler: async (input, { signal }) => {
      const path = itemRoute(
        deps,
        input.project_id,
        `Needle ${input.needle_id}`,
        `/gauge_needles/${input.needle_id}.json`,
      );
      await deps.client.request('DELETE', path, {
        signal,
        notFound: needleNotFound(input.needle_id),
      });
      return { needle_id: input.needle_id, deleted: true as const };
    },
  });

export const listGauges = basecampTool({ toolset: 'projects', operations: ['ListGauges'] }, createListGauges);
export const setGauge = basecampTool({ toolset: 'projects', operations: ['ToggleGauge'] }, createSetGauge);
export const listGaugeNeedles = basecampTool(
  { toolset: 'projects', operations: ['ListGaugeNeedles'] },
  createListGaugeNeedles,
);
export const addGaugeNeedle = basecampTool(
  { toolset: 'projects', operations: ['CreateGaugeNeedle'] },
  createAddGaugeNeedle,
);
export const updateGaugeNeedle = basecampTool(
  { toolset: 'projects', operations: ['UpdateGaugeNeedle'] },
  createUpdateGaugeNeedle,
);
export const deleteGaugeNeedle = basecampTool(
  { toolset: 'projects', operations: ['DestroyGaugeNeedle'] },
  createDeleteGaugeNeedle,
);
