export { Keyring, type KeyringSecrets, MIN_SECRET_BYTES, type Opened } from './crypto.js';
export { DecryptError, STORE_RETRY_AFTER_SECONDS, StoreUnavailableError } from './errors.js';
export {
  type ForgetResult,
  forgetUser,
  listUsers,
  type RevokeResult,
  type RotateKeysResult,
  resolveUser,
  revokeUser,
  rotateKeys,
  USERS_KEY,
  type UserSummary,
} from './oauth/admin.js';
export {
  type AuthorizationServer,
  type AuthorizationServerOptions,
  cimdFetchAllowed,
  createAuthorizationServer,
  DEFAULT_CIMD_HOSTS,
  DEFAULT_REDIRECT_HOSTS,
  MCP_SCOPE,
  redirectUriAllowed,
} from './oauth/authorization-server.js';
export { type ConnectForge, type ConnectForgeOptions, createConnectForge } from './oauth/connect-forge.js';
export {
  type BasecampConnection,
  type BasecampCredentials,
  basecampUserId,
  Connections,
  type ConnectionsOptions,
  connectionKey,
} from './oauth/connections.js';
export {
  CONNECT_FORGE_PATH,
  DEFAULT_FORGE_API_URL,
  ForgeAuth,
  type ForgeAuthOptions,
  type ForgeDevicePoll,
  type ForgeDeviceStart,
  ForgeGrantError,
  type ForgeLink,
  type ForgeLinkCredentials,
  ForgeLinks,
  type ForgeLinksOptions,
  forgeLinkKey,
} from './oauth/forge-links.js';
export {
  createHostedAuth,
  DEFAULT_LAUNCHPAD_URL,
  type HostedAuth,
  type HostedAuthOptions,
  listFromEnv,
  parsePublicUrl,
  secondsFromEnv,
} from './oauth/hosted-auth.js';
export {
  Launchpad,
  type LaunchpadAccount,
  type LaunchpadApp,
  LaunchpadGrantError,
  type LaunchpadIdentity,
  type LaunchpadTokens,
} from './oauth/launchpad.js';
export {
  createResourceServer,
  type ResourceServer,
  type ResourceServerOptions,
} from './oauth/resource-server.js';
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
export type { KvEntry, KvLock, KvSetOptions, KvStore } from './store/kv.js';
export { MemoryStore } from './store/memory.js';
export { RedisStore, type RedisStoreOptions } from './store/redis.js';
export { type SealedEntry, SealedRecords } from './store/sealed.js';
export { SqliteStore, type SqliteStoreOptions } from './store/sqlite.js';
