import { readFile, stat, unlink } from 'node:fs/promises';
import { ConfigError, writePrivateFile } from '@x/mcp-core';
import { z } from 'zod';

export const LOGIN_COMMAND = '`basecamp-mcp login`';

/**
 * What `basecamp-mcp login` saves (mode 0600). The OAuth app's client id and secret are kept
 * with the tokens, so a server started without them in its environment can still refresh.
 */
export const StoredLoginSchema = z.looseObject({
  accessToken: z.string().min(1),
  /** Dropped at once when Launchpad answers `invalid_grant`, so a dead token is never retried. */
  refreshToken: z.string().min(1).optional(),
  /** ISO time the access token expires. */
  expiresAt: z.string().optional(),
  accountId: z.string().regex(/^\d+$/),
  accountName: z.string().optional(),
  identity: z
    .looseObject({ id: z.number().optional(), name: z.string().optional(), email: z.string().optional() })
    .optional(),
  clientId: z.string().optional(),
  clientSecret: z.string().optional(),
});

export type StoredLogin = z.infer<typeof StoredLoginSchema>;

/** Reads the login file; `undefined` when there is none. A damaged file asks for a new login. */
export async function readLogin(path: string): Promise<StoredLogin | undefined> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new ConfigError(
      `Cannot read the Basecamp login file (${code ?? 'unknown error'}). Check its permissions or set BASECAMP_TOKEN_FILE, then run ${LOGIN_COMMAND}.`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(`The Basecamp login file is damaged (not JSON). Run ${LOGIN_COMMAND} again.`);
  }
  const result = StoredLoginSchema.safeParse(parsed);
  if (!result.success) {
    const fields = [...new Set(result.error.issues.map((issue) => issue.path.join('.') || '(root)'))];
    throw new ConfigError(
      `The Basecamp login file is invalid (bad or missing: ${fields.slice(0, 5).join(', ')}). Run ${LOGIN_COMMAND} again.`,
    );
  }
  return result.data;
}

/** The file's permission bits, to warn when others can read the tokens (not on Windows). */
export async function loginFileMode(path: string): Promise<number | undefined> {
  if (process.platform === 'win32') return undefined;
  const info = await stat(path).catch(() => undefined);
  return info === undefined ? undefined : info.mode & 0o777;
}

/**
 * Writes the login atomically (a private temp file beside it, fsynced, then renamed), mode 0600
 * in a 0700 directory, so a reader never sees half a file and a crash leaves the old one.
 */
export async function writeLogin(path: string, login: StoredLogin): Promise<void> {
  await writePrivateFile(path, `${JSON.stringify(login, null, 2)}\n`);
}

/** Deletes the login file. Returns whether there was one. */
export async function removeLogin(path: string): Promise<boolean> {
  try {
    await unlink(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
