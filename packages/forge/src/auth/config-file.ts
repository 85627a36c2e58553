import { readFile, stat, unlink } from 'node:fs/promises';
import { ConfigError, writePrivateFile } from '@x/mcp-core';
import { z } from 'zod';

/**
 * The `forge` CLI's login file (`~/.forge/config.json`, mode 0600). Unknown fields are kept,
 * so a refresh written by us never drops something a newer CLI stored.
 */
export const ForgeConfigSchema = z.looseObject({
  accessToken: z.string().min(1),
  refreshToken: z.string(),
  expiresAt: z.string(),
  userId: z.string(),
  teamId: z.string(),
  workspaceId: z.string().optional(),
  user: z.looseObject({ email: z.string(), displayName: z.string() }),
});

export type ForgeConfig = z.infer<typeof ForgeConfigSchema>;

const LOGIN_HINT = 'Run `forge-mcp login` (or `forge login`) to sign in again.';

/**
 * Reads and validates the login file. Returns `undefined` when it does not exist. A file that
 * is not JSON or lacks a field is an error that says to log in again; it is never rewritten here.
 */
export async function readConfig(
  path: string,
  onWarning?: (message: string) => void,
): Promise<ForgeConfig | undefined> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(
      `Cannot read the Forge login file (${(error as NodeJS.ErrnoException).code ?? 'unknown error'}). Check its permissions, or set FORGE_CONFIG_PATH. ${LOGIN_HINT}`,
    );
  }
  if (onWarning && process.platform !== 'win32') {
    const mode = (await stat(path).catch(() => undefined))?.mode;
    if (mode !== undefined && (mode & 0o777) !== 0o600) {
      onWarning(
        `The Forge login file is readable by others (mode ${(mode & 0o777).toString(8)}). Run: chmod 600 ${path}`,
      );
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(`The Forge login file is malformed (not JSON). ${LOGIN_HINT}`);
  }
  const result = ForgeConfigSchema.safeParse(parsed);
  if (!result.success) {
    const fields = [...new Set(result.error.issues.map((issue) => issue.path.join('.') || '(root)'))];
    throw new ConfigError(
      `The Forge login file is invalid (bad or missing: ${fields.slice(0, 5).join(', ')}). ${LOGIN_HINT}`,
    );
  }
  return result.data;
}

/**
 * Writes the login file atomically: a private temp file in the same directory, then a rename,
 * so a reader (this server, the `forge` CLI) never sees half a file. Mode 0600, directory 0700.
 */
export async function writeConfig(path: string, config: ForgeConfig): Promise<void> {
  await writePrivateFile(path, `${JSON.stringify(config, null, 2)}\n`);
}

/** Deletes the login file. Returns whether there was one. */
export async function removeConfig(path: string): Promise<boolean> {
  try {
    await unlink(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
