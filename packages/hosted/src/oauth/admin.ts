import type { Keyring } from '../crypto.js';
import { createOidcAdapter, grantIdsOfAccount } from '../oidc-adapter.js';
import type { KvStore } from '../store/kv.js';
import { SealedRecords } from '../store/sealed.js';
import { type BasecampConnection, connectionKey } from './connections.js';
import { forgeLinkKey } from './forge-links.js';
import type { Launchpad } from './launchpad.js';

/** The set of every user who ever signed in (user ids, no secrets). */
export const USERS_KEY = 'users';

export interface UserSummary {
  user: string;
  name: string;
  email: string;
  accountId: string;
  accountName: string;
  status: BasecampConnection['status'] | 'revoked';
  grants: number;
  updatedAt?: string;
}

/** Every user who signed in, with their Basecamp identity and how many grants they hold. */
export async function listUsers(store: KvStore, keyring: Keyring): Promise<UserSummary[]> {
  const records = new SealedRecords(store, keyring);
  const users = (await store.smembers(USERS_KEY)).sort();
  return Promise.all(
    users.map(async (user) => {
      const connection = (await records.get<BasecampConnection>(connectionKey(user)))?.value;
      const grants = (await grantIdsOfAccount(store, user)).length;
      return connection
        ? {
            user,
            name: connection.identity.name,
            email: connection.identity.email,
            accountId: connection.accountId,
            accountName: connection.accountName,
            status: connection.status,
            grants,
            updatedAt: new Date(connection.updatedAt).toISOString(),
          }
        : { user, name: '', email: '', accountId: '', accountName: '', status: 'revoked' as const, grants };
    }),
  );
}

export interface RevokeResult {
  /** Grants revoked (with their access and refresh tokens and codes). */
  grants: number;
  /** Whether a Basecamp connection was deleted. */
  connection: boolean;
  /** Whether Launchpad was asked to revoke the user's Basecamp token. */
  upstream: boolean;
  /** Whether a Forge link was deleted. */
  forge: boolean;
}

/**
 * Signs a user out everywhere at once: every grant with its tokens (our resource server refuses
 * their access tokens from the next request on), the stored Basecamp connection and Forge link, and — when
 * `launchpad` is given — the Basecamp token at Launchpad. The user can sign in again unless the
 * account allowlist now refuses them.
 */
export async function revokeUser(
  store: KvStore,
  keyring: Keyring,
  user: string,
  options: { launchpad?: Launchpad } = {},
): Promise<RevokeResult> {
  const adapter = createOidcAdapter(store, keyring);
  const grants = await grantIdsOfAccount(store, user);
  for (const model of ['AccessToken', 'RefreshToken', 'AuthorizationCode']) {
    const tokens = adapter(model);
    for (const grantId of grants) await tokens.revokeByGrantId(grantId);
  }
  const grantModel = adapter('Grant');
  for (const grantId of grants) await grantModel.destroy(grantId);
  const records = new SealedRecords(store, keyring);
  const connection = (await records.get<BasecampConnection>(connectionKey(user)))?.value;
  let upstream = false;
  if (connection && options.launchpad) {
    await options.launchpad.revoke(connection.accessToken);
    upstream = true;
  }
  const deleted = await store.delete(connectionKey(user));
  const forge = await store.delete(forgeLinkKey(user));
  return { grants: grants.length, connection: deleted, upstream, forge };
}
