import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  connectHttp,
  describeProviderBin,
  resultData,
  resultText,
  spawnStdioClient,
  startHttpBin,
} from '@x/mcp-core/testing';
import { describe, expect, it, vi } from 'vitest';
import { SETTINGS_TABLE } from './environment.js';
import type { Project } from './store/project.js';
import { createExampleStore } from './testing/index.js';
import { VERSION } from './version.js';

/** The built bin: what `npx -y @x/mcp-context-forge` runs. */
const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

// The checks every provider bin passes (@x/mcp-core/testing).
describeProviderBin({ bin, name: 'context-forge-mcp', version: VERSION, table: SETTINGS_TABLE });

describe('context-forge-mcp', () => {
  it('--sandbox serves a temporary example store over stdio and removes it on exit', async () => {
    const { client, close, stderr } = await spawnStdioClient({
      command: process.execPath,
      args: [bin, '--sandbox'],
    });
    let dataDir: string | undefined;
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual([
        'context_build',
        'context_summarize',
        'project_create',
        'project_get',
        'project_list',
        'project_update',
        'prompt_get',
        'prompt_list',
        'template_preview',
      ]);
      const listed = resultData<{ count: number; projects: { id: string }[] }>(
        await client.callTool({ name: 'project_list', arguments: {} }),
      );
      expect(listed.count).toBe(3);
      const context = resultText(
        await client.callTool({ name: 'context_build', arguments: { projectId: listed.projects[0]?.id } }),
      );
      expect(context).toContain('### Current Work Context');
      dataDir = /store at (\S+) with/.exec(stderr())?.[1];
      expect(dataDir).toBeDefined();
    } finally {
      await close();
    }
    await vi.waitFor(async () =>
      expect(await readdir(join(dataDir as string, '..')).catch(() => 'gone')).toBe('gone'),
    );
  });

  it('needs no configuration: it uses the app’s own config directory', async () => {
    const home = await createExampleStore({ seedProjects: false });
    const env = {
      HOME: home.dataDir,
      XDG_CONFIG_HOME: join(home.dataDir, 'config'),
      CONTEXT_FORGE_DATA_DIR: '',
    };
    const { client, close } = await spawnStdioClient({ command: process.execPath, args: [bin], env });
    try {
      const created = resultData<Project>(
        await client.callTool({
          name: 'project_create',
          arguments: { name: 'first', template: 'default', slice: '' },
        }),
      );
      const stored = JSON.parse(
        await readFile(join(home.dataDir, 'config', 'context-forge', 'projects.json'), 'utf8'),
      );
      expect(stored).toEqual([created]);
    } finally {
      await close();
      await home.close();
    }
  });

  it('works on CONTEXT_FORGE_DATA_DIR over HTTP, and the file it writes is the app’s format', async () => {
    const store = await createExampleStore();
    const server = await startHttpBin({
      command: process.execPath,
      args: [bin, '--http', '--port', '0'],
      env: { CONTEXT_FORGE_DATA_DIR: store.dataDir },
    });
    try {
      const { client, close } = await connectHttp(server.url);
      try {
        const updated = resultData<Project>(
          await client.callTool({
            name: 'project_update',
            arguments: { id: store.projects[0]?.id, developmentPhase: 'Phase 7: Integration' },
          }),
        );
        expect(updated.developmentPhase).toBe('Phase 7: Integration');
      } finally {
        await close();
      }
      const text = await readFile(join(store.dataDir, 'projects.json'), 'utf8');
      const stored = JSON.parse(text) as Project[];
      expect(text).toBe(JSON.stringify(stored, null, 2));
      expect(stored[0]?.developmentPhase).toBe('Phase 7: Integration');
      expect(stored.slice(1)).toEqual(store.projects.slice(1));
    } finally {
      await server.stop();
      await store.close();
    }
  });

  // Before the linear template renderer, this summary made each context_build of the project take
  // ~17-30 s, and the HTTP server answered nobody meanwhile; the 10 s limit catches a relapse.
  it('stays responsive over HTTP after a hostile 50,000-character summary is stored', {
    timeout: 10_000,
  }, async () => {
    const store = await createExampleStore();
    const server = await startHttpBin({
      command: process.execPath,
      args: [bin, '--http', '--port', '0'],
      env: { CONTEXT_FORGE_DATA_DIR: store.dataDir },
    });
    try {
      const { client, close } = await connectHttp(server.url);
      try {
        const projectId = store.projects[0]?.id;
        const summary = '{{#if a}}x{{else}}y'.repeat(2_600);
        await client.callTool({ name: 'context_summarize', arguments: { projectId, summary } });
        const [context, listed] = await Promise.all([
          client.callTool({ name: 'context_build', arguments: { projectId } }),
          client.callTool({ name: 'project_list', arguments: {} }),
        ]);
        expect(resultText(context)).toContain(`### Current Project State\n${'{#if a}xy'.repeat(2_600)}`);
        expect(resultData<{ count: number }>(listed).count).toBe(3);
      } finally {
        await close();
      }
    } finally {
      await server.stop();
      await store.close();
    }
  });

  it('keeps every update when two servers write the same store at once (150 interleaved calls each)', async () => {
    const store = await createExampleStore({ seedProjects: false });
    const perServer = 150;
    const creates = 20;
    const workers = ['a', 'b'];
    const seeded = workers.flatMap((worker) =>
      Array.from({ length: perServer - creates }, (_, i) => ({
        id: `project_1700000000000_${worker}${String(i).padStart(8, '0')}`,
        name: `${worker}-${i}`,
        template: 'default',
        slice: 'todo',
        taskFile: '',
        instruction: 'implementation',
        isMonorepo: false,
        customData: { availableTools: 'git' },
        createdAt: '2026-11-01T00:00:00.000Z',
        updatedAt: '2026-11-01T00:00:00.000Z',
      })),
    );
    await writeFile(join(store.dataDir, 'projects.json'), JSON.stringify(seeded, null, 2));
    const env = { CONTEXT_FORGE_DATA_DIR: store.dataDir };
    const servers = await Promise.all(
      workers.map(() => spawnStdioClient({ command: process.execPath, args: [bin], env })),
    );
    try {
      await Promise.all(
        servers.map(async ({ client }, index) => {
          const worker = workers[index] as string;
          const calls = [
            ...seeded
              .filter((project) => project.name.startsWith(`${worker}-`))
              .map((project) => ({
                name: 'project_update',
                arguments: {
                  id: project.id,
                  slice: `done-${worker}`,
                  customData: { recentEvents: project.name },
                },
              })),
            ...Array.from({ length: creates }, (_, i) => ({
              name: 'project_create',
              arguments: { name: `${worker}-new-${i}`, template: 'default', slice: 'new' },
            })),
          ];
          // Four calls in flight per server: in-process queueing and the cross-process lock at once.
          for (let i = 0; i < calls.length; i += 4) {
            const results = await Promise.all(calls.slice(i, i + 4).map((c) => client.callTool(c)));
            for (const result of results) expect(result.isError).toBeFalsy();
          }
        }),
      );
    } finally {
      await Promise.all(servers.map((server) => server.close()));
    }
    const stored = JSON.parse(await readFile(join(store.dataDir, 'projects.json'), 'utf8')) as Project[];
    expect(stored).toHaveLength(seeded.length + workers.length * creates);
    for (const project of seeded) {
      const after = stored.find((candidate) => candidate.id === project.id);
      const worker = project.name.split('-')[0];
      expect(after).toMatchObject({
        slice: `done-${worker}`,
        customData: { availableTools: 'git', recentEvents: project.name },
      });
    }
    for (const worker of workers) {
      const created = stored.filter((project) => project.name.startsWith(`${worker}-new-`));
      expect(created).toHaveLength(creates);
    }
    expect((await readdir(store.dataDir)).sort()).toEqual(['projects.json', 'projects.json.backup']);
    await store.close();
  });
});
