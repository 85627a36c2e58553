import type { ToolProvider } from '@x/mcp-core';
import type { SandboxHandle } from '@x/mcp-core/node';
import { createTemplateProvider } from '../index.js';
import { startFakeNotes } from './fake.js';

/** `template-mcp --sandbox`: the tools on a fresh fake of the Notes API, signed in. */
export async function createSandbox(): Promise<SandboxHandle<ToolProvider>> {
  const fake = await startFakeNotes();
  return {
    provider: createTemplateProvider({ apiUrl: fake.url, token: fake.token }),
    description: `fake Notes API at ${fake.url} (two sample notes)`,
    close: fake.close,
  };
}
