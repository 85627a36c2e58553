export { Keyring, type KeyringSecrets, MIN_SECRET_BYTES, type Opened } from './crypto.js';
export { DecryptError, STORE_RETRY_AFTER_SECONDS, StoreUnavailableError } from './errors.js';
export {
  createOidcAdapter,
  grantIdsOfAccount,
  type OidcAdapter,
  type OidcPayload,
  oidcKeys,
} from './oidc-adapter.js';
export {
  InvalidGrantBreaker,
  type InvalidGrantBreakerOptions,
  RefreshCoordinator,
  type RefreshCoordinatorOptions,
  type RefreshRequest,
} from './refresh.js';
export {
  loadSigningKeys,
  publicJwks,
  rotateSigningKeys,
  SIGNING_KEYS_KEY,
  type SigningJwk,
} from './signing-keys.js';
export { type CreateStoreOptions, createStore } from './store/create.js';
export { FileStore } from './store/file.js';
export type { KvEntry, KvLock, KvSetOptions, KvStore } from './store/kv.js';
export { MemoryStore } from './store/memory.js';
export { RedisStore, type RedisStoreOptions } from './store/redis.js';
export { type SealedEntry, SealedRecords } from './store/sealed.js';
