import { createHash, generateKeyPairSync, type JsonWebKey } from 'node:crypto';
import { ConflictError, createLogger, type Logger } from '@x/mcp-core';
import type { Keyring } from './crypto.js';
import { KeyUnavailableError, StoreUnavailableError } from './errors.js';
import type { KvStore } from './store/kv.js';
import { SealedRecords } from './store/sealed.js';

/** A private signing key as a JWK (ES256, P-256), with its RFC 7638 thumbprint as `kid`. */
export interface SigningJwk extends JsonWebKey {
  kid: string;
  alg: 'ES256';
  use: 'sig';
}

/** The store key of the signing keys (sealed). */
export const SIGNING_KEYS_KEY = 'keys:jwks';
/** Keys kept: the current one signs; the previous one still verifies tokens issued before a rotation. */
const KEEP = 2;

/**
 * The authorization server's signing keys (a JWKS with private parts for oidc-provider's
 * `jwks`), generated once and shared through the store: the first replica to start creates
 * them (set-if-absent), every other replica reads the same ones. Stored sealed with the keyring.
 * The first key signs.
 */
export async function loadSigningKeys(store: KvStore, keyring: Keyring): Promise<SigningJwk[]> {
  const records = new SealedRecords(store, keyring);
  for (let attempt = 0; attempt < 5; attempt++) {
    const existing = await records.get<{ keys: SigningJwk[] }>(SIGNING_KEYS_KEY);
    if (existing) return existing.value.keys;
    const written = await records.set(SIGNING_KEYS_KEY, { keys: [generateSigningKey()] }, { ifVersion: 0 });
    if (written !== undefined)
      return (await records.get<{ keys: SigningJwk[] }>(SIGNING_KEYS_KEY))?.value.keys ?? [];
  }
  throw new ConflictError('The signing keys could not be created (concurrent writers); retry.');
}

/**
 * Puts a new signing key first and keeps the previous one for verification (older keys are
 * dropped). Replicas pick the new keys up when they next load them.
 */
export async function rotateSigningKeys(store: KvStore, keyring: Keyring): Promise<SigningJwk[]> {
  const records = new SealedRecords(store, keyring);
  for (let attempt = 0; attempt < 5; attempt++) {
    const existing = await records.get<{ keys: SigningJwk[] }>(SIGNING_KEYS_KEY);
    const keys = [generateSigningKey(), ...(existing?.value.keys ?? [])].slice(0, KEEP);
    const written = await records.set(SIGNING_KEYS_KEY, { keys }, { ifVersion: existing?.version ?? 0 });
    if (written !== undefined) return keys;
  }
  throw new ConflictError('The signing keys changed while rotating; retry.');
}

/** How a replica's signing keys compare with the store's, after a {@link SigningKeySet.sync}. */
export interface SigningKeysState {
  /** Signer and verifier use the store's key set. */
  ok: boolean;
  /** For `/readyz` (key counts and what is wrong; never a key). */
  detail: string;
}

export interface SigningKeySetOptions {
  logger?: Logger;
}

/** Unknown key ids in access tokens make a replica look at the store at most this often. */
const UNKNOWN_KID_INTERVAL_MS = 1000;

/**
 * One replica's signing keys: what its authorization server signs with and what its resource
 * server verifies with, always the same set, kept in step with the store's `keys:jwks`.
 * {@link sync} (every few seconds with {@link watch}, before each `/token`, for an access token
 * naming an unknown key, and from `/readyz`) compares the store's sealed record with the one this replica last
 * adopted:
 * - the same: nothing to do (no decryption);
 * - another key set (`keys rotate`, or a replica that started on a store that had lost them):
 *   adopted, and every `onChange` listener re-keys its side at once;
 * - gone (Redis restarted without persistence, flushed, the key evicted): this replica writes
 *   its own keys back (set-if-absent; the first replica to notice wins and the others adopt
 *   its set), so tokens already issued keep verifying;
 * - present but not opening with the keyring, or malformed: kept as they are, and the state
 *   is not ok (`/readyz` 503) until an operator fixes it.
 */
export class SigningKeySet {
  readonly #records: SealedRecords;
  readonly #store: KvStore;
  readonly #logger: Logger;
  #keys: SigningJwk[];
  /** The sealed text of the store's record this replica last adopted or wrote. */
  #sealed: string | undefined;
  #state: SigningKeysState;
  #inFlight: Promise<SigningKeysState> | undefined;
  #unknownKidSync: Promise<unknown> | undefined;
  #unknownKidSyncAt = 0;
  readonly #listeners: Array<(keys: readonly SigningJwk[]) => void> = [];
  #timer: NodeJS.Timeout | undefined;

  private constructor(
    store: KvStore,
    keyring: Keyring,
    keys: SigningJwk[],
    sealed: string | undefined,
    options: SigningKeySetOptions,
  ) {
    this.#store = store;
    this.#records = new SealedRecords(store, keyring);
    this.#logger = options.logger ?? createLogger('signing-keys');
    this.#keys = keys;
    this.#sealed = sealed;
    this.#state = { ok: true, detail: describe(keys) };
  }

  /** The store's signing keys (created when there are none), checked from then on. */
  static async load(
    store: KvStore,
    keyring: Keyring,
    options: SigningKeySetOptions = {},
  ): Promise<SigningKeySet> {
    const keys = await loadSigningKeys(store, keyring);
    const sealed = (await store.get(SIGNING_KEYS_KEY))?.value;
    return new SigningKeySet(store, keyring, keys, sealed, options);
  }

  /** The keys in use; the first signs. */
  get keys(): readonly SigningJwk[] {
    return this.#keys;
  }

  /** The state after the last comparison with the store. */
  get state(): SigningKeysState {
    return this.#state;
  }

  /** Called (synchronously, in order) with the new keys whenever this replica adopts another set. */
  onChange(listener: (keys: readonly SigningJwk[]) => void): void {
    this.#listeners.push(listener);
  }

  /**
   * Compares with the store now and adopts or restores as described above; concurrent callers
   * share one comparison. Rejects with `StoreUnavailableError` when the store cannot answer.
   */
  sync(): Promise<SigningKeysState> {
    this.#inFlight ??= this.#compare().finally(() => {
      this.#inFlight = undefined;
    });
    return this.#inFlight;
  }

  /**
   * Whether `kid` is one of this replica's keys, after looking at the store when it is not (at
   * most once a second: a flood of made-up key ids waits for the next look, it does not cause
   * more of them). A store that cannot answer leaves it unknown.
   */
  async knows(kid: string): Promise<boolean> {
    if (this.#keys.some((key) => key.kid === kid)) return true;
    if (!this.#unknownKidSync) {
      const wait = Math.max(0, this.#unknownKidSyncAt + UNKNOWN_KID_INTERVAL_MS - Date.now());
      this.#unknownKidSync = new Promise((resolve) => setTimeout(resolve, wait))
        .then(() => {
          this.#unknownKidSyncAt = Date.now();
          return this.sync();
        })
        .catch(() => undefined)
        .finally(() => {
          this.#unknownKidSync = undefined;
        });
    }
    await this.#unknownKidSync;
    return this.#keys.some((key) => key.kid === kid);
  }

  /** Compares with the store every `intervalMs` from now on (until {@link close}). */
  watch(intervalMs = 5000): void {
    this.close();
    // A store outage shows in the store's own readiness check; the next tick tries again.
    this.#timer = setInterval(() => void this.sync().catch(() => undefined), intervalMs);
    this.#timer.unref();
  }

  /** Stops the periodic comparison. */
  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #compare(): Promise<SigningKeysState> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const entry = await this.#store.get(SIGNING_KEYS_KEY);
      if (!entry) {
        const written = await this.#records.set(SIGNING_KEYS_KEY, { keys: this.#keys }, { ifVersion: 0 });
        if (written !== undefined) {
          this.#logger.warn(
            'the signing keys were missing from the store (Redis restarted without persistence, flushed or evicted); this replica wrote its own back',
            { keys: this.#keys.length },
          );
        }
        // Either way, read what is stored now: ours, or the set of a replica that wrote first.
        continue;
      }
      if (entry.value === this.#sealed) return this.#set({ ok: true, detail: describe(this.#keys) });
      let stored: unknown;
      try {
        stored = (await this.#records.open<{ keys: unknown }>(SIGNING_KEYS_KEY, entry))?.value.keys;
      } catch (error) {
        // A set sealed with a key this replica lacks (KeyUnavailableError) does not open either;
        // only an unreachable store is not an answer.
        if (StoreUnavailableError.isInstance(error) && !KeyUnavailableError.isInstance(error)) throw error;
        return this.#refuse(
          'the signing keys in the store do not open with MCP_SECRET (or MCP_SECRET_PREVIOUS)',
        );
      }
      const keys = validKeys(stored);
      if (typeof keys === 'string') return this.#refuse(keys);
      if (!sameKids(keys, this.#keys)) {
        try {
          for (const listener of this.#listeners) listener(keys);
        } catch (error) {
          // Tried again on the next comparison (the record is not taken as adopted).
          return this.#refuse(
            `the store's new signing keys could not be put in use: ${(error as Error).message}`,
          );
        }
        this.#keys = keys;
        this.#logger.warn(
          'the signing keys in the store changed; this replica now signs and verifies with them',
          {
            keys: keys.length,
          },
        );
      }
      this.#sealed = entry.value;
      return this.#set({ ok: true, detail: describe(keys) });
    }
    return this.#set({ ok: false, detail: 'the signing keys in the store keep changing' });
  }

  /** The store's set cannot be used: this replica keeps its keys and reports not ready. */
  #refuse(detail: string): SigningKeysState {
    if (this.#state.ok || this.#state.detail !== detail) this.#logger.error(detail);
    return this.#set({ ok: false, detail });
  }

  #set(state: SigningKeysState): SigningKeysState {
    this.#state = state;
    return state;
  }
}

function describe(keys: readonly SigningJwk[]): string {
  return `${keys.length} signing ${keys.length === 1 ? 'key' : 'keys'}, the same as the store's`;
}

function sameKids(a: readonly SigningJwk[], b: readonly SigningJwk[]): boolean {
  return a.length === b.length && a.every((key, index) => key.kid === b[index]?.kid);
}

/** The keys of a stored set, or what is wrong with it. */
function validKeys(keys: unknown): SigningJwk[] | string {
  if (!Array.isArray(keys) || keys.length === 0) return 'the signing key set in the store has no keys';
  for (const key of keys as Array<Partial<SigningJwk> | null>) {
    if (
      key?.kty !== 'EC' ||
      key.crv !== 'P-256' ||
      key.alg !== 'ES256' ||
      typeof key.kid !== 'string' ||
      typeof key.d !== 'string' ||
      typeof key.x !== 'string' ||
      typeof key.y !== 'string'
    ) {
      return 'the signing key set in the store holds a key that is not a private ES256 (P-256) key';
    }
  }
  return keys as SigningJwk[];
}

/** The public half of signing keys (what `/jwks` publishes). */
export function publicJwks(keys: readonly SigningJwk[]): { keys: JsonWebKey[] } {
  return { keys: keys.map(({ kty, crv, x, y, kid, alg, use }) => ({ kty, crv, x, y, kid, alg, use })) };
}

function generateSigningKey(): SigningJwk {
  const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  // RFC 7638: the thumbprint of the required public members, in lexicographic order.
  const thumbprint = createHash('sha256')
    .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }))
    .digest('base64url');
  return { ...jwk, kid: thumbprint, alg: 'ES256', use: 'sig' };
}
