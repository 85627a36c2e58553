import type { HostedSandboxFake, ToolProvider } from '@x/mcp-core';
import type { SandboxHandle } from '@x/mcp-core/node';
import { createForgeProvider } from '../index.js';
import { startFakeForge } from './fake-forge.js';

/** `forge-mcp --sandbox`: the Forge tools on a fresh fake backend in this process. */
export async function createSandbox(): Promise<SandboxHandle<ToolProvider>> {
  const fake = await startFakeForge();
  return {
    provider: createForgeProvider({ apiUrl: fake.url, accessToken: fake.accessToken, teamId: fake.teamId }),
    description: `fake Forge at ${fake.url} with ${fake.tickets.size} tickets (nothing leaves this machine)`,
    close: fake.close,
  };
}

/**
 * `x-mcp-server --http --auth oauth --sandbox`: a fake Forge whose device login a signed-in
 * person links at `/connect/forge` (this package's connection declares it).
 */
export async function createHostedSandbox(): Promise<HostedSandboxFake> {
  const fake = await startFakeForge();
  return {
    settings: { apiUrl: fake.url },
    env: { FORGE_API_URL: fake.url },
    description: `fake Forge: ${fake.url}`,
    close: fake.close,
  };
}
