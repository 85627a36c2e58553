/**
 * `@x/mcp-core/upstream`: what a provider needs to talk to its upstream service. One HTTP client
 * with one retry and status policy, the credential seam with its settings and login-file
 * sources, and the shared login/logout/whoami command skeleton.
 */

export { writePrivateFile } from '../private-file.js';
export { checkReachable } from '../readiness.js';
export {
  type AuthCommand,
  AuthCommandError,
  type AuthIo,
  authCommands,
  runAuthCommand,
} from './auth-commands.js';
export {
  createUpstreamClient,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_UPSTREAM_TIMEOUT_MS,
  type UpstreamAuth,
  type UpstreamClient,
  type UpstreamClientOptions,
  type UpstreamRequestOptions,
  type UpstreamResponse,
  type UpstreamStats,
} from './client.js';
export {
  type CredentialSource,
  type ExpiredReason,
  type LoginFileCredentialsOptions,
  lazyCredentials,
  loginFileCredentials,
  RefreshRejectedError,
  type SettingsOnFirstUse,
  settingsOnFirstUse,
  staticCredentials,
} from './credentials.js';
export {
  type GraphqlErrorReaderOptions,
  graphqlErrorReader,
  type UpstreamAnswer,
  type UpstreamErrorFinding,
  type UpstreamErrorReader,
} from './error-reader.js';
export { networkErrorCode, parseRetryAfter, sleep } from './helpers.js';
export { createLoginFile, type LoginFile, type LoginFileOptions, loginFileKind } from './login-file.js';
export { redactSecrets, upstreamMessage } from './redact.js';
export { DEFAULT_RETRY_POLICY, isIdempotent, type RetryPolicy, retryDelay } from './retry.js';
export {
  DEFAULT_TIMEOUT_MS,
  environmentProblems,
  loadNumberSetting,
  loadSetting,
  loadTimeoutSetting,
  loadUrlSetting,
  MAX_TIMEOUT_MS,
  type SettingSource,
  type SettingVariable,
} from './settings.js';
export {
  type ConfigShape,
  configSchemaOf,
  environmentOf,
  indexSettings,
  loadUrlRow,
  resolveHttpSettings,
  type SettingRow,
  type SettingsIndex,
  type SettingType,
  TIMEOUT_SETTING,
} from './settings-table.js';
export { defaultStatusError, type StatusErrorMap, type UpstreamFailure } from './status.js';
