import { NotFoundError, type SignInClient } from '@x/mcp-core';
import type { Keyring } from '../crypto.js';
import { DecryptError } from '../errors.js';
import { activateCurrentKey } from '../key-meta.js';
import { createOidcAdapter, grantIdsOfAccount, type OidcPayload, oidcKeys } from '../oidc-adapter.js';
import { loadSigningKeys, rotateSigningKeys, type SigningJwk } from '../signing-keys.js';
import type { KvStore } from '../store/kv.js';
import { SealedRecords } from '../store/sealed.js';
import { taskIndexKey, taskKey } from '../store/tasks.js';
import {
  connectionKey,
  profileKey,
  type SignInRecord,
  signInProviderOf,
  type UserProfile,
} from './connections.js';

/** The store key of a user's linked account at a provider (`conn:<userId>:<provider>`). */
export const linkedAccountKey = (userId: string, provider: string): string => `conn:${userId}:${provider}`;

/** When `keys rotate` last made a new signing key (epoch ms). */
const SIGNING_KEY_ROTATED_KEY = 'keys:rotated-at';

/** The set of every user who ever signed in (user ids, no secrets). */
export const USERS_KEY = 'users';

export interface UserSummary {
  user: string;
  name: string;
  email: string;
  accountId: string;
  accountName: string;
  status: SignInRecord['status'] | 'revoked';
  grants: number;
  updatedAt?: string;
}

/** Every user who signed in, with their sign-in identity and how many grants they hold. */
export async function listUsers(store: KvStore, keyring: Keyring): Promise<UserSummary[]> {
  const records = new SealedRecords(store, keyring);
  const users = (await store.smembers(USERS_KEY)).sort();
  return Promise.all(
    users.map(async (user) => {
      const connection = (await records.get<SignInRecord>(connectionKey(user)))?.value;
      const grants = (await grantIdsOfAccount(store, user)).length;
      if (connection) {
        return {
          user,
          name: connection.identity.name,
          email: connection.identity.email,
          accountId: connection.accountId,
          accountName: connection.accountName,
          status: connection.status,
          grants,
          updatedAt: new Date(connection.updatedAt).toISOString(),
        };
      }
      const profile = (await records.get<UserProfile>(profileKey(user)))?.value;
      return {
        user,
        name: profile?.name ?? '',
        email: profile?.email ?? '',
        accountId: profile?.accountId ?? '',
        accountName: profile?.accountName ?? '',
        status: 'revoked' as const,
        grants,
      };
    }),
  );
}

export interface RevokeCounts {
  /** Grants revoked (with their access and refresh tokens and codes). */
  grants: number;
  /** Whether the sign-in connection was deleted. */
  connection: boolean;
  /** Whether the upstream was asked to revoke the user's sign-in token. */
  upstream: boolean;
}

/** {@link RevokeCounts}, and per linked-account provider named in `linked`: whether its link was deleted. */
export type RevokeResult = RevokeCounts & { readonly [linkedProvider: string]: boolean | number };

export interface RevokeOptions {
  /** The sign-in the user signed in with: its upstream token is revoked too. */
  signIn?: SignInClient;
  /** The providers of the linked accounts the server serves: each one's link is deleted and reported. */
  linked?: readonly string[];
}

/**
 * Signs a user out everywhere at once: every grant with its tokens (our resource server refuses
 * their access tokens from the next request on), the stored sign-in connection and linked accounts,
 * and — when `signIn` is the user's — the sign-in token at the upstream. The user can sign in again
 * unless the account allowlist now refuses them.
 */
export async function revokeUser(
  store: KvStore,
  keyring: Keyring,
  user: string,
  options: RevokeOptions = {},
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
  const connection = (await records.get<SignInRecord>(connectionKey(user)))?.value;
  let upstream = false;
  if (connection && options.signIn?.connection.provider === signInProviderOf(user)) {
    await options.signIn.revoke(connection.accessToken);
    upstream = true;
  }
  const deleted = await store.delete(connectionKey(user));
  const linked: Record<string, boolean> = {};
  for (const provider of options.linked ?? []) {
    linked[provider] = await store.delete(linkedAccountKey(user, provider));
  }
  return { grants: grants.length, connection: deleted, upstream, ...linked };
}

/**
 * The user id for `<user>` as an admin types it: a user id `users list` prints, or the email of
 * exactly one user. `NOT_FOUND` otherwise (an ambiguous email lists the candidates).
 */
export async function resolveUser(store: KvStore, keyring: Keyring, user: string): Promise<string> {
  const ids = await store.smembers(USERS_KEY);
  if (ids.includes(user)) return user;
  if (user.includes('@')) {
    const matches = (await listUsers(store, keyring)).filter(
      (entry) => entry.email.toLowerCase() === user.toLowerCase(),
    );
    if (matches.length === 1) return (matches[0] as UserSummary).user;
    if (matches.length > 1) {
      throw new NotFoundError(
        `Several users have the email ${user}: ${matches.map((entry) => entry.user).join(', ')}. Name one by id.`,
      );
    }
  }
  throw new NotFoundError(`No user ${user}. \`x-mcp-server users list\` shows every user id and email.`);
}

export interface ForgetResult extends RevokeResult {
  /** Upstream connections deleted (the sign-in, linked accounts, and any other connector). */
  connections: number;
  /** Remembered consents deleted (one per client the user approved). */
  consents: number;
  /** Browser sessions at our authorization server deleted. */
  sessions: number;
}

/**
 * Deletes everything the server keeps about a user: their grants with every access and refresh
 * token and code ({@link revokeUser}, which also revokes the sign-in token at the upstream when
 * `signIn` is given), every upstream connection, the remembered consents, the browser
 * sessions and sign-ins in flight, the refresh back-off, and the user from the user list.
 * Nothing of the user is left afterwards; they can sign in again as a new user unless the
 * allowlist refuses them.
 */
export async function forgetUser(
  store: KvStore,
  keyring: Keyring,
  user: string,
  options: RevokeOptions = {},
): Promise<ForgetResult> {
  const revoked = await revokeUser(store, keyring, user, options);
  const records = new SealedRecords(store, keyring);
  let connections =
    (revoked.connection ? 1 : 0) +
    (options.linked ?? []).filter((provider) => revoked[provider] === true).length;
  for (const key of await store.keys(`conn:${user}:`)) if (await store.delete(key)) connections++;
  let consents = 0;
  for (const key of await store.keys(`consent:${user}:`)) if (await store.delete(key)) consents++;
  for (const key of await store.keys(`backoff:${user}:`)) await store.delete(key);
  // Tasks the user started (their results may hold their data) and their index.
  for (const key of await store.keys(taskKey(`user:${user}`, ''))) await store.delete(key);
  await store.delete(taskIndexKey(`user:${user}`));
  // Browser sessions, and sign-ins in flight (interactions, callback tickets), that name the user.
  let sessions = 0;
  const quoted = JSON.stringify(user);
  for (const prefix of ['oidc:Session:', 'oidc:Interaction:', 'ticket:']) {
    for (const key of await store.keys(prefix)) {
      const entry = await records.get<OidcPayload>(key).catch(() => undefined);
      if (!entry || !JSON.stringify(entry.value).includes(quoted)) continue;
      if (prefix === 'oidc:Session:' && typeof entry.value.uid === 'string') {
        await store.delete(oidcKeys.uid(entry.value.uid));
      }
      if ((await store.delete(key)) && prefix === 'oidc:Session:') sessions++;
    }
  }
  await store.delete(oidcKeys.account(user));
  await store.delete(profileKey(user));
  await store.srem(USERS_KEY, [user]);
  return { ...revoked, connections, consents, sessions };
}

export interface RotateKeysResult {
  /** The id of the key every record is now sealed with (`MCP_SECRET`'s), named in `keys:meta`. */
  keyId: string;
  /** Records sealed with `MCP_SECRET_PREVIOUS` and sealed again with `MCP_SECRET`. */
  resealed: number;
  /** Sealed records already on the current key. */
  current: number;
  /**
   * Records that look sealed but open with neither secret (sealed with an older secret than
   * `MCP_SECRET_PREVIOUS`): they stay as they are, and whatever they hold is lost.
   */
  unreadable: number;
  /** The signing key now first (it signs once a replica loads it: at its next start). */
  signingKey: string;
  /**
   * Whether a new signing key was made. Not when the last one is younger than
   * `signingKeyMinAgeMs`: only one previous key is kept, so a second rotation within an access
   * token's lifetime would drop the key that still-valid tokens were signed with.
   */
  signingKeyRotated: boolean;
  /** Signing keys still published for verification (the previous one, for tokens issued before). */
  retainedSigningKeys: string[];
}

/**
 * `keys rotate`, run with the new `MCP_SECRET` and the old one as `MCP_SECRET_PREVIOUS` once every
 * replica runs with both: names the new key in `keys:meta` (every replica seals with it from its
 * next write on; a replica with only the old secret can no longer start), then seals every record
 * that the previous secret sealed again with the current one (compare-and-set, so a concurrent
 * newer write is never overwritten; TTLs kept), in two passes so that a write a replica began just
 * before the switch is caught too. It is the only writer that re-seals. Then it puts a new signing
 * key first while the previous one stays published, so access tokens already issued keep
 * verifying until they expire (a new signing key at most once per `signingKeyMinAgeMs`, default
 * 1 h: set it to the access token lifetime). Afterwards `MCP_SECRET_PREVIOUS` can be dropped.
 * Running it again is harmless.
 */
export async function rotateKeys(
  store: KvStore,
  keyring: Keyring,
  options: { signingKeyMinAgeMs?: number } = {},
): Promise<RotateKeysResult> {
  await activateCurrentKey(store, keyring);
  let resealed = 0;
  let current = 0;
  let unreadable = 0;
  for (const pass of [1, 2]) {
    current = 0;
    unreadable = 0;
    for (const key of await store.keys('')) {
      const outcome = await resealRecord(store, keyring, key);
      if (outcome === 'resealed') resealed++;
      else if (outcome === 'current' && pass === 2) current++;
      else if (outcome === 'unreadable') unreadable++;
    }
  }
  const rotatedAt = Number((await store.get(SIGNING_KEY_ROTATED_KEY))?.value ?? 0);
  const rotate = Date.now() - rotatedAt >= (options.signingKeyMinAgeMs ?? 3600_000);
  const keys = rotate ? await rotateSigningKeys(store, keyring) : await loadSigningKeys(store, keyring);
  if (rotate) await store.set(SIGNING_KEY_ROTATED_KEY, String(Date.now()));
  return {
    keyId: keyring.currentKeyId,
    resealed,
    current,
    unreadable,
    signingKey: (keys[0] as SigningJwk).kid,
    signingKeyRotated: rotate,
    retainedSigningKeys: keys.slice(1).map((key) => key.kid),
  };
}

/** Seals one record again with the current key when the previous one sealed it. */
async function resealRecord(
  store: KvStore,
  keyring: Keyring,
  key: string,
): Promise<'resealed' | 'current' | 'unreadable' | 'skipped'> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const entry = await store.get(key);
    if (!entry) return 'skipped';
    let opened: ReturnType<Keyring['decrypt']>;
    try {
      opened = keyring.decrypt(entry.value, key);
    } catch (error) {
      // Not a sealed record at all (a counter, a timestamp, JSON): nothing to do.
      return DecryptError.isInstance(error) && error.reason !== 'format' ? 'unreadable' : 'skipped';
    }
    if (!opened.stale) return 'current';
    const ttlMs = entry.expiresAt === undefined ? undefined : entry.expiresAt - Date.now();
    if (ttlMs !== undefined && ttlMs <= 0) return 'skipped';
    const written = await store.set(key, keyring.encrypt(opened.plaintext, key), {
      ifVersion: entry.version,
      ...(ttlMs === undefined ? {} : { ttlMs: Math.max(1, Math.floor(ttlMs)) }),
    });
    if (written !== undefined) return 'resealed';
  }
  return 'skipped';
}
