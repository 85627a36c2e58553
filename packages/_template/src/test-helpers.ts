import { type ConnectedClient, connectInMemory } from '@x/mcp-core/testing';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createTemplateProvider } from './index.js';
import type { TemplateSettings } from './settings.js';
import { type FakeNotes, startFakeNotes } from './testing/index.js';

/**
 * A fresh fake Notes API per test file and an MCP client connected to the provider on it; the
 * request log is cleared between tests. Pass settings to replace the default sign-in.
 */
export function useNotes(settings?: (fake: FakeNotes) => TemplateSettings) {
  const state = {} as { fake: FakeNotes; connection: ConnectedClient };
  beforeAll(async () => {
    state.fake = await startFakeNotes();
    const provider = createTemplateProvider(
      settings?.(state.fake) ?? { apiUrl: state.fake.url, token: state.fake.token, env: {} },
    );
    state.connection = await connectInMemory(provider);
  });
  afterEach(() => {
    state.fake.requests.length = 0;
    state.fake.clearFaults();
  });
  afterAll(async () => {
    await state.connection.close();
    await state.fake.close();
  });
  return {
    get fake() {
      return state.fake;
    },
    call: (name: string, args: Record<string, unknown> = {}) =>
      state.connection.client.callTool({ name, arguments: args }),
  };
}
