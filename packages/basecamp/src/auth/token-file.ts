import { loginFileKind } from '@x/mcp-core/upstream';
import { z } from 'zod';
import { SETTINGS } from '../environment.js';

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

/** The login file at a path, read and written the way every provider's is. */
export const basecampLoginFile = loginFileKind(StoredLoginSchema, {
  label: 'Basecamp login file',
  loginCommand: LOGIN_COMMAND,
  pathVariable: SETTINGS.tokenFile.env,
});

/** Reads the login file; `undefined` when there is none. A damaged file asks for a new login. */
export function readLogin(path: string): Promise<StoredLogin | undefined> {
  return basecampLoginFile(path).read();
}

/** Writes the login atomically, mode 0600 in a 0700 directory. */
export function writeLogin(path: string, login: StoredLogin): Promise<void> {
  return basecampLoginFile(path).write(login);
}

/** Deletes the login file. Returns whether there was one. */
export function removeLogin(path: string): Promise<boolean> {
  return basecampLoginFile(path).remove();
}
