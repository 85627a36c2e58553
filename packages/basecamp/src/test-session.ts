import { ToolRegistry } from '@x/mcp-core';
import { type ConnectedClient, connectInMemory } from '@x/mcp-core/testing';
import { afterAll, beforeAll } from 'vitest';
import { type BasecampSettings, createBasecampProvider } from './index.js';
import { type FakeBasecamp, startFakeBasecamp } from './testing/index.js';

export interface BasecampSession {
  /** The fake Basecamp of this test file (set once `beforeAll` has run). */
  readonly fake: FakeBasecamp;
  /** The in-memory MCP client (set once `beforeAll` has run). */
  readonly client: ConnectedClient['client'];
  /** Calls a tool through the in-memory MCP client. */
  call(name: string, args: Record<string, unknown>): ReturnType<ConnectedClient['client']['callTool']>;
}

/**
 * One fake Basecamp and one MCP client for a test file, serving the given toolsets; started
 * before the file's tests and closed after them. `settings` adds provider settings (e.g. `uploadDir`).
 */
export function useBasecampSession(toolsets: string, settings: BasecampSettings = {}): BasecampSession {
  let fake: FakeBasecamp | undefined;
  let connection: ConnectedClient | undefined;
  beforeAll(async () => {
    fake = await startFakeBasecamp();
    connection = await connectInMemory(
      new ToolRegistry().use(
        createBasecampProvider({
          apiUrl: fake.url,
          accessToken: fake.accessToken,
          accountId: fake.accountId,
          rateLimitRequests: 10_000,
          env: {},
          toolsets,
          ...settings,
        }),
      ),
    );
  });
  afterAll(async () => {
    await connection?.close();
    await fake?.close();
  });
  return {
    get fake() {
      if (!fake) throw new Error('The fake Basecamp starts in beforeAll.');
      return fake;
    },
    get client() {
      if (!connection) throw new Error('The MCP client connects in beforeAll.');
      return connection.client;
    },
    call: (name, args) => {
      if (!connection) throw new Error('The MCP client connects in beforeAll.');
      return connection.client.callTool({ name, arguments: args });
    },
  };
}
