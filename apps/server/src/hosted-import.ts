import { ConfigError } from '@x/mcp-core';

/**
 * `@x/mcp-hosted` (or one of its entries) being imported. It is the one package the bin does not
 * bundle, and `pnpm demo` does not build it: in a checkout where it is not built, the import
 * fails with a one-line `ConfigError` naming `pnpm build` instead of Node's ERR_MODULE_NOT_FOUND.
 */
export async function hostedImport<T>(loading: Promise<T>): Promise<T> {
  try {
    return await loading;
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    // What is missing is the package itself (not linked, or no dist/), not one of its dependencies.
    const missing = /Cannot find (?:module|package) '([^']+)'/.exec(String(message))?.[1] ?? '';
    if (
      code === 'ERR_MODULE_NOT_FOUND' &&
      /^@x\/mcp-hosted(\/|$)|[\\/](mcp-)?hosted[\\/]dist[\\/]/.test(missing)
    ) {
      throw new ConfigError(
        '@x/mcp-hosted is not built in this checkout (packages/hosted/dist is missing): run `pnpm build` at the repository root, then run this again.',
      );
    }
    throw error;
  }
}
