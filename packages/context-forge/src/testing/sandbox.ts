import type { ToolProvider } from '@x/mcp-core';
import type { SandboxHandle } from '@x/mcp-core/node';
import { createContextForgeProvider } from '../index.js';
import { createExampleStore } from './example-store.js';

/** `context-forge-mcp --sandbox`: the tools on a temporary example store, removed on close. */
export async function createSandbox(): Promise<SandboxHandle<ToolProvider>> {
  const store = await createExampleStore();
  return {
    provider: createContextForgeProvider({ dataDir: store.dataDir }),
    description: `temporary Context Forge store at ${store.dataDir} with ${store.projects.length} example projects`,
    close: store.close,
  };
}
