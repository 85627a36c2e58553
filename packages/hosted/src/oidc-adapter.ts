import { createHash } from 'node:crypto';
import { ConflictError } from '@x/mcp-core';
import type { Keyring } from './crypto.js';
import type { KvStore } from './store/kv.js';
import { SealedRecords } from './store/sealed.js';

/** A payload oidc-provider stores (the fields the adapter looks at; the rest is opaque). */
export interface OidcPayload {
  [field: string]: unknown;
  grantId?: string;
  accountId?: string;
  uid?: string;
  userCode?: string;
  consumed?: number;
}

/** oidc-provider's storage adapter interface (`adapter` in its configuration). */
export interface OidcAdapter {
  upsert(id: string, payload: OidcPayload, expiresIn?: number): Promise<void>;
  find(id: string): Promise<OidcPayload | undefined>;
  findByUid(uid: string): Promise<OidcPayload | undefined>;
  findByUserCode(userCode: string): Promise<OidcPayload | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

/** Models whose records belong to a grant, so revoking the grant removes them. */
const GRANTABLE = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'PreAuthorizedCode',
]);

const CONSUME_ATTEMPTS = 5;

/**
 * Seconds after a refresh token was rotated in which presenting it again is taken for a race
 * (a proxy retrying `POST /token`, two tabs refreshing together, the same request reaching two
 * replicas), not for a theft: it is refused as unknown (`invalid_grant`) and the grant lives.
 * Later, oidc-provider's reuse detection revokes the grant (RFC 9700 §4.14.2).
 */
export const REFRESH_TOKEN_REUSE_GRACE_SECONDS = 10;

const sha256 = (text: string) => createHash('sha256').update(text).digest('base64url');

/** Store keys of the oidc-provider records (HOSTED.md §5.5). Ids are hashed, never stored in clear. */
export const oidcKeys = {
  record: (model: string, id: string) => `oidc:${model}:${sha256(id)}`,
  /** What every record of a model starts with. */
  model: (model: string) => `oidc:${model}:`,
  grant: (grantId: string) => `oidc:idx:grant:${grantId}`,
  account: (accountId: string) => `oidc:idx:account:${accountId}`,
  uid: (uid: string) => `oidc:idx:uid:${sha256(uid)}`,
  userCode: (userCode: string) => `oidc:idx:userCode:${sha256(userCode)}`,
};

/**
 * oidc-provider's adapter on a {@link KvStore}, for one process or many replicas:
 * - record keys hold a SHA-256 of the id (tokens, codes, session ids never appear in keys),
 *   and every value is sealed with the keyring for its key (client secrets, claims);
 * - `consume` is a compare-and-set: of two replicas redeeming one code or rotating one refresh
 *   token at the same moment, one marks it consumed and the other gets a `ConflictError`, so
 *   one grant never yields two token sets; a refresh token used less than
 *   {@link REFRESH_TOKEN_REUSE_GRACE_SECONDS} ago is not found (the loser of such a race gets
 *   `invalid_grant`, the winner's tokens live), after that oidc-provider's reuse detection
 *   revokes the grant;
 * - grant and account indexes (small sets) serve `revokeByGrantId` and
 *   {@link grantIdsOfAccount} ("sign this user out everywhere").
 *
 * ```ts
 * new Provider(issuer, { adapter: createOidcAdapter(store, keyring), ... })
 * ```
 */
export function createOidcAdapter(store: KvStore, keyring: Keyring): (model: string) => OidcAdapter {
  const sealed = new SealedRecords(store, keyring);
  return (model) => new KvOidcAdapter(model, store, sealed);
}

/** The grant ids issued to an account (our user id), for revoking all of them. */
export function grantIdsOfAccount(store: KvStore, accountId: string): Promise<string[]> {
  return store.smembers(oidcKeys.account(accountId));
}

class KvOidcAdapter implements OidcAdapter {
  readonly #model: string;
  readonly #store: KvStore;
  readonly #sealed: SealedRecords;

  constructor(model: string, store: KvStore, sealed: SealedRecords) {
    this.#model = model;
    this.#store = store;
    this.#sealed = sealed;
  }

  async upsert(id: string, payload: OidcPayload, expiresIn?: number): Promise<void> {
    const key = oidcKeys.record(this.#model, id);
    const ttl = typeof expiresIn === 'number' ? { ttlMs: Math.max(1, Math.ceil(expiresIn * 1000)) } : {};
    await this.#sealed.set(key, payload, ttl);
    const { grantId, accountId, uid, userCode } = payload;
    if (GRANTABLE.has(this.#model) && typeof grantId === 'string') {
      await this.#store.sadd(oidcKeys.grant(grantId), [key], ttl);
    }
    if (this.#model === 'Grant' && typeof accountId === 'string') {
      await this.#store.sadd(oidcKeys.account(accountId), [id], ttl);
    }
    if (this.#model === 'Session' && typeof uid === 'string') {
      await this.#sealed.set(oidcKeys.uid(uid), id, ttl);
    }
    if (typeof userCode === 'string') {
      await this.#sealed.set(oidcKeys.userCode(userCode), id, ttl);
    }
  }

  async find(id: string): Promise<OidcPayload | undefined> {
    const payload = (await this.#sealed.get<OidcPayload>(oidcKeys.record(this.#model, id)))?.value;
    // oidc-provider revokes the whole grant when a used refresh token comes back. When two
    // refreshes of one token both read it before either marks it (usual within one process),
    // `consume`'s compare-and-set fails for the loser: invalid_grant. Across replicas the
    // loser often reads it already marked, which would revoke the winner's new tokens too:
    // just used, it is unknown instead.
    if (
      this.#model === 'RefreshToken' &&
      typeof payload?.consumed === 'number' &&
      Date.now() / 1000 - payload.consumed < REFRESH_TOKEN_REUSE_GRACE_SECONDS
    ) {
      return undefined;
    }
    return payload;
  }

  async findByUid(uid: string): Promise<OidcPayload | undefined> {
    const id = (await this.#sealed.get<string>(oidcKeys.uid(uid)))?.value;
    return id === undefined ? undefined : this.find(id);
  }

  async findByUserCode(userCode: string): Promise<OidcPayload | undefined> {
    const id = (await this.#sealed.get<string>(oidcKeys.userCode(userCode)))?.value;
    return id === undefined ? undefined : this.find(id);
  }

  async consume(id: string): Promise<void> {
    const key = oidcKeys.record(this.#model, id);
    for (let attempt = 0; attempt < CONSUME_ATTEMPTS; attempt++) {
      const entry = await this.#sealed.get<OidcPayload>(key);
      if (!entry) return;
      if (entry.value.consumed) {
        throw new ConflictError(`This ${this.#model} was already used.`);
      }
      const remaining = entry.expiresAt === undefined ? undefined : entry.expiresAt - Date.now();
      if (remaining !== undefined && remaining <= 0) return;
      const written = await this.#sealed.set(
        key,
        { ...entry.value, consumed: Math.floor(Date.now() / 1000) },
        { ifVersion: entry.version, ...(remaining === undefined ? {} : { ttlMs: Math.ceil(remaining) }) },
      );
      if (written !== undefined) return;
    }
    throw new ConflictError(`This ${this.#model} is being used concurrently.`);
  }

  async destroy(id: string): Promise<void> {
    const key = oidcKeys.record(this.#model, id);
    const payload = await this.#sealed.get<OidcPayload>(key).then(
      (entry) => entry?.value,
      () => undefined,
    );
    await this.#store.delete(key);
    if (!payload) return;
    if (GRANTABLE.has(this.#model) && typeof payload.grantId === 'string') {
      await this.#store.srem(oidcKeys.grant(payload.grantId), [key]);
    }
    if (this.#model === 'Grant' && typeof payload.accountId === 'string') {
      await this.#store.srem(oidcKeys.account(payload.accountId), [id]);
    }
    if (this.#model === 'Session' && typeof payload.uid === 'string') {
      await this.#deletePointer(oidcKeys.uid(payload.uid), id);
    }
    if (typeof payload.userCode === 'string') {
      await this.#deletePointer(oidcKeys.userCode(payload.userCode), id);
    }
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    const index = oidcKeys.grant(grantId);
    const members = await this.#store.smembers(index);
    for (const key of members) await this.#store.delete(key);
    if (members.length > 0) await this.#store.srem(index, members);
  }

  /** Deletes an index pointer while it points at `id` (uids and user codes are random and unique). */
  async #deletePointer(key: string, id: string): Promise<void> {
    const entry = await this.#sealed.get<string>(key).catch(() => undefined);
    if (entry?.value === id) await this.#store.delete(key);
  }
}
