import { randomInt } from 'node:crypto';

/** The four free-text fields the app keeps under `customData`; other keys are kept as found. */
export interface CustomData {
  recentEvents?: string;
  additionalNotes?: string;
  monorepoNote?: string;
  availableTools?: string;
  [key: string]: unknown;
}

export type WorkType = 'start' | 'continue';

/** A project as the desktop app stores it in `projects.json`, after the app's read defaults. */
export interface Project {
  id: string;
  name: string;
  template: string;
  slice: string;
  taskFile: string;
  instruction: string;
  developmentPhase?: string;
  workType?: WorkType;
  projectDate?: string;
  isMonorepo: boolean;
  isMonorepoEnabled?: boolean;
  projectPath?: string;
  customData: CustomData;
  createdAt: string;
  updatedAt: string;
  /** Fields written by newer versions of the app survive our writes. */
  [key: string]: unknown;
}

/** The fields `project_update` may change. */
export interface ProjectChanges {
  name?: string;
  template?: string;
  slice?: string;
  taskFile?: string;
  instruction?: string;
  developmentPhase?: string;
  workType?: WorkType;
  projectDate?: string;
  isMonorepo?: boolean;
  isMonorepoEnabled?: boolean;
  projectPath?: string;
  /** Merged key by key into the stored `customData`. */
  customData?: CustomData;
}

/** The fields `project_create` takes; the rest get the app's defaults. */
export interface NewProject extends Omit<ProjectChanges, 'name' | 'template' | 'slice'> {
  name: string;
  template: string;
  slice: string;
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An array entry we can address: an object with a string `id`. Anything else is kept but not shown. */
export const isProjectEntry = (value: unknown): value is Record<string, unknown> & { id: string } =>
  isRecord(value) && typeof value.id === 'string';

/** The app's read defaults for fields older files lack; every other field is kept as stored. */
export function withReadDefaults(entry: Record<string, unknown> & { id: string }): Project {
  return {
    ...(entry as Project),
    taskFile: typeof entry.taskFile === 'string' ? entry.taskFile : '',
    instruction: typeof entry.instruction === 'string' ? entry.instruction : 'implementation',
    isMonorepo: typeof entry.isMonorepo === 'boolean' ? entry.isMonorepo : false,
    customData: isRecord(entry.customData) ? (entry.customData as CustomData) : {},
  };
}

const BASE36 = '0123456789abcdefghijklmnopqrstuvwxyz';

/** An id in the app's format: `project_<epoch ms>_<9 base36 characters>`. */
export function newProjectId(now = Date.now()): string {
  let suffix = '';
  for (let i = 0; i < 9; i++) suffix += BASE36[randomInt(36)];
  return `project_${now}_${suffix}`;
}

/** A new project with the fields in the order the app writes them (`undefined` ones are left out). */
export function createProject(input: NewProject, now = new Date()): Project {
  const timestamp = now.toISOString();
  return {
    id: newProjectId(now.getTime()),
    name: input.name,
    template: input.template,
    slice: input.slice,
    taskFile: input.taskFile ?? '',
    instruction: input.instruction ?? 'implementation',
    developmentPhase: input.developmentPhase,
    workType: input.workType,
    projectDate: input.projectDate,
    isMonorepo: input.isMonorepo ?? false,
    isMonorepoEnabled: input.isMonorepoEnabled,
    projectPath: input.projectPath,
    customData: { ...input.customData },
    createdAt: timestamp,
    updatedAt: timestamp,
  };
}

/**
 * The stored project with `changes` applied, as the app's update does it (read defaults, then the
 * changes, then a new `updatedAt`), except that `customData` is merged key by key instead of
 * replaced, so setting one note never wipes the others.
 */
export function applyChanges(project: Project, changes: ProjectChanges, now = new Date()): Project {
  const { customData, ...fields } = changes;
  const defined = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  return {
    ...project,
    ...defined,
    ...(customData === undefined ? {} : { customData: { ...project.customData, ...customData } }),
    updatedAt: now.toISOString(),
  };
}

/** The summary `project_list` shows per project. */
export function summarize(project: Project) {
  return {
    id: project.id,
    name: project.name,
    slice: project.slice,
    template: project.template,
    instruction: project.instruction,
    isMonorepo: project.isMonorepo,
    ...(project.projectPath === undefined ? {} : { projectPath: project.projectPath }),
    updatedAt: project.updatedAt,
  };
}
