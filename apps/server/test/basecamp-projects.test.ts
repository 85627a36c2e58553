import { type FakeBasecamp, IDS, LAPTOP, LOCATOR, startFakeBasecamp } from '@x/mcp-basecamp/testing';
import { ToolRegistry } from '@x/mcp-core';
import { connectInMemory, errorBody, resultData } from '@x/mcp-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CompositionOptions, compose } from '../src/compose.js';
import { parseConfig } from '../src/config.js';

// The Basecamp project allowlist is a provider setting: the config file's
// `providers.basecamp.settings.projects`, or `compose({ settings: { basecamp: { projects } } })`
// as the hosted server builds one registry per user.

let fake: FakeBasecamp;
beforeAll(async () => {
  fake = await startFakeBasecamp();
});
afterAll(() => fake.close());

async function served(options: CompositionOptions) {
  const registry = new ToolRegistry();
  for (const entry of await compose({ ...options, only: ['basecamp'] }))
    registry.use(entry.provider, entry.use);
  return connectInMemory(registry);
}

const upstream = () => ({
  apiUrl: fake.url,
  accessToken: fake.accessToken,
  accountId: fake.accountId,
  env: {},
});

describe('a composition limited to some Basecamp projects', () => {
  it('takes projects from compose settings and from the config', async () => {
    for (const options of [
      { settings: { basecamp: { ...upstream(), projects: [LAPTOP] } } },
      {
        config: parseConfig({ providers: { basecamp: { settings: { projects: [LAPTOP] } } } }),
        settings: { basecamp: upstream() },
      },
    ]) {
      const connection = await served(options);
      try {
        const projects = resultData<{ items: { id: number }[] }>(
          await connection.client.callTool({ name: 'basecamp_list_projects', arguments: { status: 'all' } }),
        );
        expect(projects.items.map((project) => project.id)).toEqual([LAPTOP]);
        const todo = resultData<{ id: number }>(
          await connection.client.callTool({
            name: 'basecamp_get_todo',
            arguments: { project_id: LAPTOP, todo_id: IDS.assignedTodo },
          }),
        );
        expect(todo.id).toBe(IDS.assignedTodo);
        const refused = errorBody(
          await connection.client.callTool({
            name: 'basecamp_list_messages',
            arguments: { project_id: LOCATOR },
          }),
        );
        expect(refused).toMatchObject({ error_code: 'PERMISSION_DENIED', allowed_projects: [LAPTOP] });
      } finally {
        await connection.close();
      }
    }
  });

  it('refuses a config whose projects are not project IDs', () => {
    expect(() => parseConfig({ providers: { basecamp: { settings: { projects: ['launch'] } } } })).toThrow(
      /projects/,
    );
  });
});
