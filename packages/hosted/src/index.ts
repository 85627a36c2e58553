export {
  type AuditDirectory,
  type AuditEntry,
  type AuditEvent,
  AuditLog,
  type AuditLogOptions,
} from './audit/audit-log.js';
export { type ChainHead, ChainVerifier, GENESIS, type VerifyReport } from './audit/chain.js';
export {
  type AuditTarget,
  auditTarget,
  openAuditSink,
  recordAdminAction,
  type StartAuditOptions,
  startAudit,
} from './audit/config.js';
export { parseSince, type TailFilter, tailAudit, verifyAudit } from './audit/read.js';
export { type RedactedText, redactArguments } from './audit/redact.js';
export { type AuditSink, FileSink, type FileSinkOptions, RedisSink, StdoutSink } from './audit/sinks.js';
export { Keyring, type KeyringSecrets, MIN_SECRET_BYTES, type Opened } from './crypto.js';
export {
  DecryptError,
  KeyUnavailableError,
  STORE_RETRY_AFTER_SECONDS,
  StoreUnavailableError,
} from './errors.js';
export { adoptKeyMeta, KEY_META_KEY, type KeyMeta, readKeyMeta } from './key-meta.js';
export {
  type ForgetResult,
  forgetUser,
  linkedAccountKey,
  listUsers,
  type RevokeCounts,
  type RevokeOptions,
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
  DEFAULT_RATE_LIMITS,
  DEFAULT_REDIRECT_HOSTS,
  DEFAULT_REGISTRATION_LIMIT,
  MCP_SCOPE,
  type RateLimitedEndpoint,
  redirectUriAllowed,
} from './oauth/authorization-server.js';
export {
  type ConnectLinked,
  type ConnectLinkedOptions,
  createConnectLinked,
} from './oauth/connect-linked.js';
export {
  Connections,
  type ConnectionsOptions,
  connectionKey,
  type SignInCredentials,
  type SignInRecord,
  signInProviderOf,
  signInUserId,
} from './oauth/connections.js';
export {
  createHostedAuth,
  type HostedAuth,
  type HostedAuthOptions,
  listFromEnv,
  parsePublicUrl,
  secondsFromEnv,
} from './oauth/hosted-auth.js';
export {
  type Admission,
  clientAddress,
  type Limit,
  limitFromEnv,
  parseTrustProxy,
  RateLimiter,
  type TrustProxy,
} from './oauth/limits.js';
export {
  connectPath,
  LinkedAccounts,
  type LinkedAccountsOptions,
  type LinkRecord,
} from './oauth/linked-accounts.js';
export { parseRedirectSchemes } from './oauth/redirect-uris.js';
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
  REFRESH_TOKEN_REUSE_GRACE_SECONDS,
} from './oidc-adapter.js';
export {
  isAccountId,
  Policy,
  type PolicyDecision,
  type PolicyIdentity,
  type PolicyNames,
  type PolicySignIn,
} from './policy.js';
export {
  type Caller,
  Governance,
  type GovernanceOptions,
  type Governed,
  governedAuth,
} from './policy-access.js';
export {
  MAX_POLICY_BYTES,
  PolicyFile,
  type PolicyFileOptions,
  type PolicyReload,
  readPolicyFile,
} from './policy-file.js';
export {
  type BucketSpec,
  type BucketTake,
  type CallLimits,
  MemoryTokenBuckets,
  type MemoryTokenBucketsOptions,
  RATE_FORMS,
  type Rate,
  RedisTokenBuckets,
  rateFromEnv,
  readRate,
  type TokenBuckets,
  tokenBucketsFor,
  UserRateLimits,
} from './rate-limit.js';
export {
  InvalidGrantBreaker,
  type InvalidGrantBreakerOptions,
  RefreshCoordinator,
  type RefreshCoordinatorOptions,
  type RefreshPermit,
  type RefreshRefusal,
  type RefreshRequest,
} from './refresh.js';
export {
  loadSigningKeys,
  publicJwks,
  rotateSigningKeys,
  SIGNING_KEYS_KEY,
  type SigningJwk,
  SigningKeySet,
  type SigningKeySetOptions,
  type SigningKeysState,
} from './signing-keys.js';
export { CachedStore, type CachedStoreOptions } from './store/cached.js';
export { type CreateStoreOptions, createStore } from './store/create.js';
export type { KvEntry, KvLock, KvSetOptions, KvStore, KvWatcher } from './store/kv.js';
export { MemoryStore } from './store/memory.js';
export { RedisStore, type RedisStoreOptions } from './store/redis.js';
export { type SealedEntry, SealedRecords } from './store/sealed.js';
export { SqliteStore, type SqliteStoreOptions } from './store/sqlite.js';
export { HostedTaskStore } from './store/tasks.js';
