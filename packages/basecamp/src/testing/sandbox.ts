import type { ToolProvider } from '@x/mcp-core';
import type { SandboxHandle } from '@x/mcp-core/node';
import { createBasecampProvider } from '../index.js';
import { startFakeBasecamp } from './fake-basecamp.js';

/**
 * `basecamp-mcp --sandbox`: the Basecamp tools on a fresh fake Basecamp in this process. The fake
 * enforces Basecamp's usual budget (50 requests per 10 s), so the sandbox shows the limiter at work.
 */
export async function createSandbox(
  options: {
    toolsets?: string | readonly string[] | undefined;
    dynamicToolsets?: boolean | undefined;
    projects?: readonly number[] | undefined;
  } = {},
): Promise<SandboxHandle<ToolProvider>> {
  const fake = await startFakeBasecamp({ rateLimit: { requests: 50, windowMs: 10_000 } });
  return {
    provider: createBasecampProvider({
      apiUrl: fake.url,
      launchpadUrl: fake.launchpadUrl,
      accessToken: fake.accessToken,
      accountId: fake.accountId,
      env: {},
      ...(options.toolsets === undefined ? {} : { toolsets: options.toolsets }),
      ...(options.dynamicToolsets === undefined ? {} : { dynamicToolsets: options.dynamicToolsets }),
      ...(options.projects === undefined ? {} : { projects: options.projects }),
    }),
    description: `fake Basecamp at ${fake.url}/${fake.accountId} (nothing leaves this machine)`,
    close: fake.close,
  };
}
