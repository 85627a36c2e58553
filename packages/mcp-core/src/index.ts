export {
  type Completer,
  type CompletionContext,
  matchCompletions,
} from './completion.js';
export { ContentCatalog } from './content.js';
export {
  describeTool,
  TOOL_NAME_PATTERN,
  ToolDefinitionSchema,
  type ToolDescriptor,
  validateToolDefinition,
} from './descriptor.js';
export {
  ConfigError,
  ConflictError,
  DuplicateToolError,
  ERROR_CODES,
  type ErrorCode,
  type ErrorDetails,
  InternalError,
  InvalidInputError,
  LimitExceededError,
  McpToolError,
  type McpToolErrorOptions,
  NotFoundError,
  PermissionDeniedError,
  RateLimitedError,
  TokenExpiredError,
  type ToolErrorBody,
  ToolNotEnabledError,
  ToolTimeoutError,
  ToolValidationError,
  UpstreamError,
  UpstreamUnavailableError,
} from './errors.js';
export type { CallContext } from './execute.js';
export {
  DEFAULT_MAX_BODY_BYTES,
  type HttpAuth,
  type HttpHandle,
  type MetricGauge,
  type ServeHttpOptions,
  serveHttp,
} from './http.js';
export {
  createLogger,
  type LogFormat,
  type Logger,
  type LoggerOptions,
  type LogLevel,
  redact,
} from './logger.js';
export { isLoopbackHost } from './loopback.js';
export { type McpServerLike, type MountOptions, mountTools, type ToolSource } from './mount.js';
export {
  type ObservedScope,
  observe,
  type TelemetryObserver,
  type ToolCallEnd,
  type ToolCallEvent,
  type ToolCallOutcome,
  type UpstreamRequestEnd,
  type UpstreamRequestEvent,
} from './observability/events.js';
export { writePrivateFile } from './private-file.js';
export {
  type AnyPromptDefinition,
  type ContentContext,
  definePrompt,
  describePrompt,
  type PromptArgumentDescriptor,
  type PromptDefinition,
  type PromptDescriptor,
  type PromptMessage,
  type PromptResult,
} from './prompt.js';
export { checkReachable } from './readiness.js';
export {
  DEFAULT_TIMEOUT_MS,
  globalToolRegistry,
  type RegistryReadiness,
  ToolRegistry,
  type ToolRegistryOptions,
  type UseOptions,
} from './registry.js';
export { McpRequestError } from './request-error.js';
export {
  type AnyResourceDefinition,
  type AnyResourceTemplateDefinition,
  defineResource,
  defineResourceTemplate,
  describeResource,
  type FixedResourceDefinition,
  type ListedResource,
  type ResourceContent,
  type ResourceDescriptor,
  type ResourceTemplateDefinition,
} from './resource.js';
export {
  isToolCallResult,
  type TextContent,
  type ToolCallResult,
  type ToolSuccessOptions,
  toolError,
  toolSuccess,
} from './result.js';
export {
  type BinCommand,
  type BinContext,
  type BinFlag,
  type EnvironmentVariable,
  type HttpAuthContext,
  type HttpAuthSetup,
  type ProviderEntry,
  type ProviderSource,
  type RunBinOptions,
  runBin,
  type SandboxHandle,
} from './runner.js';
export { type CreateMcpServerOptions, createMcpServer } from './server.js';
export { claimStdout, type ServeStdioOptions, type StdioHandle, serveStdio } from './stdio.js';
export {
  type AnyToolDefinition,
  defineTool,
  type ProviderReadiness,
  type ReadinessCheck,
  type RequestInfo,
  type ToolAnnotations,
  type ToolContext,
  type ToolDefinition,
  type ToolProvider,
} from './tool.js';
export {
  renderToolRefs,
  renderToolRefsDeep,
  type ToolNamer,
  toolRef,
  toolRefsIn,
} from './tool-ref.js';
export { networkErrorCode, parseRetryAfter, sleep } from './upstream/helpers.js';
