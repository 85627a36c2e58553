import type { ToolProvider } from '@x/mcp-core';
import type { SandboxHandle } from '@x/mcp-core/node';
import { createBbjRagProvider } from '../index.js';
import { startFakeBbjRag } from './fake-server.js';

/**
 * `bbj-mcp --sandbox`: the tools on a fresh fake of the REST service. Only the service is
 * faked: validate_bbj_syntax still runs the real compiler, if one is configured.
 */
export async function createSandbox(): Promise<SandboxHandle<ToolProvider>> {
  const fake = await startFakeBbjRag();
  return {
    provider: createBbjRagProvider({ apiUrl: fake.url }),
    description: `fake BBj RAG service at ${fake.url} (sample corpus); validate_bbj_syntax uses the real compiler (BBJ_RAG_COMPILER_PATH or bbjcpl on PATH)`,
    close: fake.close,
  };
}
