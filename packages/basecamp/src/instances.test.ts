import { ToolRegistry } from '@x/mcp-core';
import { connectInMemory } from '@x/mcp-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BasecampSettings, createBasecampProvider } from './index.js';
import { type FakeBasecamp, startFakeBasecamp } from './testing/index.js';

let fake: FakeBasecamp;
beforeAll(async () => {
  fake = await startFakeBasecamp();
});
afterAll(async () => {
  await fake.close();
});

const settings = (accessToken: string): BasecampSettings => ({
  apiUrl: fake.url,
  launchpadUrl: fake.launchpadUrl,
  accessToken,
  accountId: fake.accountId,
  env: {},
});

// The hosted server builds one provider per signed-in user: what they share and what they do not.
describe('provider instances', () => {
  it('share every tool’s schemas and texts, built once', () => {
    const [a, b] = [createBasecampProvider({ toolsets: 'all' }), createBasecampProvider({ toolsets: 'all' })];
    expect(b.tools.map((tool) => tool.name)).toEqual(a.tools.map((tool) => tool.name));
    a.tools.forEach((tool, index) => {
      const other = b.tools[index];
      expect(other).not.toBe(tool);
      expect(other?.inputSchema).toBe(tool.inputSchema);
      expect(other?.outputSchema).toBe(tool.outputSchema);
      expect(other?.description).toBe(tool.description);
      expect(other?.handler).not.toBe(tool.handler);
    });
  });

  it('each call upstream with their own credentials', async () => {
    const tokens = [fake.accessToken, fake.issueTokens().accessToken];
    // Both built before either is called: a handler must not see the other instance's client.
    const connections = await Promise.all(
      tokens.map((token) => connectInMemory(new ToolRegistry().use(createBasecampProvider(settings(token))))),
    );
    try {
      for (const [index, connection] of connections.entries()) {
        fake.resetLog();
        const result = await connection.client.callTool({ name: 'list_projects', arguments: {} });
        expect(result.isError).toBeFalsy();
        const used = fake.requests.map((request) => request.headers.authorization);
        expect(used.length).toBeGreaterThan(0);
        expect(new Set(used)).toEqual(new Set([`Bearer ${tokens[index]}`]));
      }
    } finally {
      await Promise.all(connections.map((connection) => connection.close()));
    }
  });
});
