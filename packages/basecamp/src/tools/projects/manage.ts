import { defineTool, InvalidInputError, toolRef } from '@x/mcp-core';
import { z } from 'zod';
import {
  lazy,
  PersonRefSchema,
  PersonSchema,
  ProjectSchema,
  toPerson,
  toPersonRef,
  toProject,
} from '../../shapes.js';
import { basecampTool } from '../../toolsets.js';
import {
  CREATES,
  DESTROYS,
  id,
  positiveId,
  projectId,
  READS,
  SETS_STATE,
  send,
  type ToolDeps,
} from '../shared.js';

const projectScope = (project: number) => ({
  projectId: undefined,
  what: `Project ${project}`,
  probe: `/projects/${project}.json`,
  notFound: `Project ${project} was not found, or you have no access to it. Use ${toolRef('list_projects')} to see project IDs.`,
});
const name = () => z.string().trim().min(1).max(200);
const description = () => z.string().trim().max(2_000).describe('What the project is about (plain text)');

const createProjectShape = lazy(() => ({
  name: 'create_project',
  title: 'Create a project',
  description: `Creates a project with its default tools, you as its first member (add people with ${toolRef('update_project_access')}). At the plan's limit: LIMIT_EXCEEDED.`,
  inputSchema: z.strictObject({
    name: name().describe("The project's name (unique among active projects)"),
    description: description().optional(),
  }),
  outputSchema: ProjectSchema,
  annotations: CREATES,
}));

export const createCreateProject = (deps: ToolDeps) =>
  defineTool({
    ...createProjectShape(),
    handler: async (input, { signal }) => {
      const response = await deps.client.request<Record<string, unknown>>('POST', '/projects.json', {
        body: {
          name: input.name,
          ...(input.description === undefined ? {} : { description: input.description }),
        },
        signal,
      });
      return toProject(response.data ?? {});
    },
  });

const updateProjectShape = lazy(() => ({
  name: 'update_project',
  title: 'Rename or describe a project',
  description: `Changes a project's name or description.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    name: name().optional().describe('New name'),
    description: description().optional(),
  }),
  outputSchema: ProjectSchema,
  annotations: SETS_STATE,
}));

export const createUpdateProject = (deps: ToolDeps) =>
  defineTool({
    ...updateProjectShape(),
    handler: async (input, { signal }) => {
      if (input.name === undefined && input.description === undefined) {
        throw new InvalidInputError('Nothing to change: pass name or description.');
      }
      // Basecamp needs the name on every update.
      const current = input.name ?? (await deps.docks.project(input.project_id, signal)).name;
      const data = await send(deps, 'PUT', `/projects/${input.project_id}.json`, {
        signal,
        scope: projectScope(input.project_id),
        body: {
          name: current,
          ...(input.description === undefined ? {} : { description: input.description }),
        },
      });
      return toProject(data ?? {});
    },
  });

const trashProjectShape = lazy(() => ({
  name: 'trash_project',
  title: 'Trash a project',
  description: `Moves a whole project, with everything in it, to the trash (an admin can restore it for 30 days). confirm_name must be the exact project name.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    confirm_name: z
      .string()
      .min(1)
      .max(200)
      .describe(`The project's exact name, from ${toolRef('list_projects')}, as confirmation`),
  }),
  outputSchema: z.object({ project_id: z.number(), trashed: z.literal(true) }),
  annotations: DESTROYS,
}));

function checkConfirmName(projectId: number, confirmName: string, name: string): void {
  if (name !== confirmName) {
    throw new InvalidInputError(
      `confirm_name "${confirmName.slice(0, 200)}" is not the name of project ${projectId} ("${name}"). Nothing was trashed.`,
    );
  }
}

export const createTrashProject = (deps: ToolDeps) =>
  defineTool({
    ...trashProjectShape(),
    confirm: async (input, { signal }) => {
      const project = await deps.docks.project(input.project_id, signal);
      checkConfirmName(input.project_id, input.confirm_name, project.name);
      return `Trash project '${project.name}' (${input.project_id}) and everything in it?`;
    },
    handler: async (input, { signal }) => {
      const project = await deps.docks.project(input.project_id, signal);
      checkConfirmName(input.project_id, input.confirm_name, project.name);
      await send(deps, 'DELETE', `/projects/${input.project_id}.json`, {
        signal,
        scope: projectScope(input.project_id),
      });
      return { project_id: input.project_id, trashed: true as const };
    },
  });

const updateProjectAccessShape = lazy(() => ({
  name: 'update_project_access',
  title: 'Add or remove people on a project',
  description: `Gives people access to a project (grant) or takes it away (revoke), by person ID from ${toolRef('list_people')}. Returns who was added and who was removed.`,
  inputSchema: z.strictObject({
    project_id: projectId(),
    grant: z
      .array(positiveId())
      .max(100)
      .default([])
      .describe(`People to add (${toolRef('list_people')})`),
    revoke: z
      .array(positiveId())
      .max(100)
      .default([])
      .describe(`People to remove (${toolRef('list_people')})`),
  }),
  outputSchema: z.object({ granted: z.array(PersonRefSchema), revoked: z.array(PersonRefSchema) }),
  annotations: DESTROYS,
}));

export const createUpdateProjectAccess = (deps: ToolDeps) =>
  defineTool({
    ...updateProjectAccessShape(),
    confirm: async (input, { signal }) => {
      if (input.revoke.length === 0) return undefined;
      const project = await deps.docks.project(input.project_id, signal);
      const people = input.revoke.length === 1 ? 'person' : 'people';
      return `Remove ${input.revoke.length} ${people} (ID ${input.revoke.join(', ')}) from project '${project.name}' (${input.project_id})?`;
    },
    handler: async (input, { signal }) => {
      if (input.grant.length === 0 && input.revoke.length === 0) {
        throw new InvalidInputError('Nothing to change: pass grant or revoke with person IDs.');
      }
      const data = await send(deps, 'PUT', `/projects/${input.project_id}/people/users.json`, {
        signal,
        scope: projectScope(input.project_id),
        body: { grant: input.grant, revoke: input.revoke },
      });
      const people = (value: unknown) =>
        (Array.isArray(value) ? value : []).map(toPersonRef).filter((person) => person !== null);
      return { granted: people(data?.granted), revoked: people(data?.revoked) };
    },
  });

const getPersonShape = lazy(() => ({
  name: 'get_person',
  title: 'Get a person (or yourself)',
  description:
    'Returns one person: name, email, title, company and role flags. Without person_id: the signed-in person (who the tools act as).',
  inputSchema: z.strictObject({
    person_id: id(`Person ID, from ${toolRef('list_people')}; leave out for yourself`).optional(),
  }),
  outputSchema: PersonSchema,
  annotations: READS,
}));

export const createGetPerson = (deps: ToolDeps) =>
  defineTool({
    ...getPersonShape(),
    handler: async (input, { signal }) => {
      const path = input.person_id === undefined ? '/my/profile.json' : `/people/${input.person_id}.json`;
      const response = await deps.client.get<unknown>(path, {
        signal,
        notFound: `Person ${input.person_id} was not found. Use ${toolRef('list_people')} to see person IDs.`,
      });
      const person = toPerson(response.data);
      if (!person) throw new InvalidInputError('Basecamp answered without a person.');
      return person;
    },
  });

export const createProject = basecampTool(
  { toolset: 'projects', operations: ['CreateProject'] },
  createCreateProject,
);
export const updateProject = basecampTool(
  { toolset: 'projects', operations: ['UpdateProject'] },
  createUpdateProject,
);
export const trashProject = basecampTool(
  { toolset: 'projects', operations: ['GetProject', 'TrashProject'] },
  createTrashProject,
);
export const updateProjectAccess = basecampTool(
  { toolset: 'projects', operations: ['UpdateProjectAccess'] },
  createUpdateProjectAccess,
);
export const getPerson = basecampTool(
  { toolset: 'projects', operations: ['GetPerson', 'GetMyProfile'] },
  createGetPerson,
);
