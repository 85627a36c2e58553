import { loginFileKind } from '@x/mcp-core/upstream';
import { z } from 'zod';
import { SETTINGS } from '../environment.js';

/** How messages name the command that signs in again. */
export const LOGIN_COMMAND =
  '`forge-mcp login` (from a checkout: `pnpm -s forge-mcp login`; or `forge login`)';

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

/** The login file at a path, read and written the way every provider's is. */
export const forgeLoginFile = loginFileKind(ForgeConfigSchema, {
  label: 'Forge login file',
  loginCommand: LOGIN_COMMAND,
  pathVariable: SETTINGS.configPath.env,
});

/**
 * Reads and validates the login file. Returns `undefined` when it does not exist. A file that
 * is not JSON or lacks a field is an error that says to log in again; it is never rewritten here.
 */
export async function readConfig(
  path: string,
  onWarning?: (message: string) => void,
): Promise<ForgeConfig | undefined> {
  const file = forgeLoginFile(path);
  const config = await file.read();
  if (config !== undefined && onWarning) {
    const warning = await file.modeWarning();
    if (warning) onWarning(warning);
  }
  return config;
}

/** Writes the login file atomically (private temp file, then rename), mode 0600, directory 0700. */
export async function writeConfig(path: string, config: ForgeConfig): Promise<void> {
  await forgeLoginFile(path).write(config);
}

/** Deletes the login file. Returns whether there was one. */
export function removeConfig(path: string): Promise<boolean> {
  return forgeLoginFile(path).remove();
}
