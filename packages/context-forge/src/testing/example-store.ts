import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PROJECTS_FILE, PROMPT_FILE_RELATIVE_PATH, STATEMENTS_FILE_RELATIVE_PATH } from '../paths.js';
import type { Project } from '../store/project.js';
import { EXAMPLE_PROMPT_FILE, EXAMPLE_STATEMENTS_FILE } from './prompt-file.js';

export interface ExampleStore {
  /** Use as `dataDir` (or `CONTEXT_FORGE_DATA_DIR`). */
  dataDir: string;
  /** A project root with a prompt file and a statements file. */
  projectRoot: string;
  /** A project root with a prompt file only (built-in statements). */
  monorepoRoot: string;
  /** The seeded projects, as written. */
  projects: Project[];
  /** Removes everything. */
  close(): Promise<void>;
}

export interface ExampleStoreOptions {
  /** Parent directory; default the OS temp dir. */
  parent?: string;
  /** Write `projects.json` (default true); false leaves an empty store with project roots. */
  seedProjects?: boolean;
}

/**
 * A temporary Context Forge store with realistic example projects and project roots holding a
 * prompt file: what `context-forge-mcp --sandbox`, the tests and the demo run on. It never touches
 * the user's real Context Forge directory.
 */
export async function createExampleStore(options: ExampleStoreOptions = {}): Promise<ExampleStore> {
  const base = await mkdtemp(join(options.parent ?? tmpdir(), 'context-forge-'));
  const dataDir = join(base, 'data');
  const projectRoot = join(base, 'projects', 'harbor-api');
  const monorepoRoot = join(base, 'projects', 'lumen');
  await mkdir(dataDir, { recursive: true });
  await writeProjectFiles(projectRoot, { statements: true });
  await writeProjectFiles(monorepoRoot, { statements: false });

  const projects = exampleProjects(projectRoot, monorepoRoot);
  if (options.seedProjects !== false) {
    await writeFile(join(dataDir, PROJECTS_FILE), JSON.stringify(projects, null, 2));
  }
  return {
    dataDir,
    projectRoot,
    monorepoRoot,
    projects,
    close: () => rm(base, { recursive: true, force: true }),
  };
}

/** Writes the example prompt file (and optionally statements) under a project root. */
export async function writeProjectFiles(root: string, { statements = true } = {}): Promise<void> {
  const promptFile = join(root, PROMPT_FILE_RELATIVE_PATH);
  await mkdir(dirname(promptFile), { recursive: true });
  await mkdir(join(root, 'project-documents', 'user', 'slices'), { recursive: true });
  await writeFile(promptFile, EXAMPLE_PROMPT_FILE);
  if (statements) await writeFile(join(root, STATEMENTS_FILE_RELATIVE_PATH), EXAMPLE_STATEMENTS_FILE);
}

function exampleProjects(projectRoot: string, monorepoRoot: string): Project[] {
  return [
    {
      id: 'project_1761904800000_h4rb0r7ap',
      name: 'harbor-api',
      template: 'node-service',
      slice: '140-slice.rate-limits',
      taskFile: '140-tasks.rate-limits.md',
      instruction: 'implementation',
      developmentPhase: 'Phase 6: Implementation',
      workType: 'continue',
      projectDate: '2026-11-20',
      isMonorepo: false,
      projectPath: projectRoot,
      customData: {
        recentEvents:
          '- Token bucket limiter merged behind a flag\n- Redis store for counters in review\n- Next: per-route limits',
        availableTools: 'git, pnpm, context7',
      },
      createdAt: '2026-10-31T10:00:00.000Z',
      updatedAt: '2026-11-20T16:42:10.512Z',
    },
    {
      id: 'project_1762336800000_lum3nw3b1',
      name: 'lumen',
      template: 'web-app',
      slice: '210-slice.offline-sync',
      taskFile: '',
      instruction: 'design',
      developmentPhase: 'Phase 4: Slice Design',
      workType: 'start',
      isMonorepo: true,
      isMonorepoEnabled: true,
      projectPath: monorepoRoot,
      customData: {
        monorepoNote: 'Shared UI components live in packages/ui; do not change them in this slice.',
        additionalNotes: 'The sync protocol must work with the existing REST API; no websockets yet.',
      },
      createdAt: '2026-11-05T09:20:00.000Z',
      updatedAt: '2026-11-18T08:05:44.001Z',
    },
    {
      id: 'project_1763027400000_n0t3s0n1y',
      name: 'field-notes',
      template: 'default',
      slice: '',
      taskFile: '',
      instruction: 'implementation',
      isMonorepo: false,
      customData: {},
      createdAt: '2026-11-13T09:50:00.000Z',
      updatedAt: '2026-11-13T09:50:00.000Z',
    },
  ];
}
