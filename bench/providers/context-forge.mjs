// context-forge: project_list and project_update on a 1,000-project store, against reading (and
// rewriting) projects.json directly with plain fs in this process.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createExampleStore } from '../../packages/context-forge/dist/testing/index.js';

const PROJECTS = 1000;

export default {
  id: 'context-forge',
  bin: 'packages/context-forge/dist/bin.js',
  async setup() {
    const store = await createExampleStore();
    const file = join(store.dataDir, 'projects.json');
    const [template] = store.projects;
    const projects = Array.from({ length: PROJECTS }, (_, i) => ({
      ...template,
      id: `project_1761904800000_${String(i).padStart(9, '0')}`,
      name: `project-${i}`,
    }));
    await writeFile(file, JSON.stringify(projects, null, 2));
    const target = projects[PROJECTS / 2].id;
    let n = 0;
    return {
      env: { CONTEXT_FORGE_DATA_DIR: store.dataDir },
      calls: [
        {
          label: 'project_list',
          tool: { name: 'project_list', arguments: {} },
          baseline: async () => JSON.parse(await readFile(file, 'utf8')),
        },
        {
          label: 'project_update',
          tool: { name: 'project_update', arguments: { id: target, slice: '150-slice.metrics' } },
          // The unsafe way: read, change, write in place (no lock, no backup, no fsync, no rename).
          baseline: async () => {
            const all = JSON.parse(await readFile(file, 'utf8'));
            const project = all.find((candidate) => candidate.id === target);
            project.slice = `150-slice.metrics-${n++}`;
            project.updatedAt = new Date().toISOString();
            await writeFile(file, JSON.stringify(all, null, 2));
          },
        },
      ],
      close: store.close,
    };
  },
};
