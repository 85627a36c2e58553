/**
 * `@x/mcp-core`: what a tool author needs. The tool contract, the registry and its execute path,
 * typed errors, results, prompts and resources, and mounting on an MCP server. Nothing here
 * serves a transport or touches the network: serving and the bin runner are in
 * `@x/mcp-core/node`, the upstream client and credentials in `@x/mcp-core/upstream`.
 */

export { type AccessRefusal, RegistryView, type ToolAccess } from './access.js';
export {
  type Answers,
  type AnswerTo,
  type FormAnswer,
  type FormQuestion,
  formQuestion,
  type Question,
  type Questions,
  type RootsAnswer,
  type RootsQuestion,
  rootsQuestion,
  type SamplingAnswer,
  type SamplingQuestion,
  samplingQuestion,
} from './ask.js';
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
  AuthRequiredError,
  ConfigError,
  ConflictError,
  DeclinedError,
  DuplicateToolError,
  ERROR_CODES,
  type ErrorCode,
  type ErrorDetails,
  InputUnavailableError,
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
  type ValidationIssue,
} from './errors.js';
export type { CallContext } from './execute.js';
export {
  type DevicePoll,
  type DeviceStart,
  type HostedConnectionDeclaration,
  type HostedSandboxFake,
  type HostedSandboxPerson,
  type LinkedAccount,
  type LinkedAccountClient,
  type LinkedAccountConnection,
  type RefreshBudget,
  type SignInApp,
  type SignInClient,
  type SignInConnection,
  type UpstreamAccount,
  UpstreamGrantError,
  type UpstreamIdentity,
  type UpstreamTokens,
} from './hosted-connection.js';
export {
  createLogger,
  type LogFormat,
  type Logger,
  type LoggerOptions,
  type LogLevel,
  redact,
} from './logger.js';
export { type McpServerLike, type MountOptions, mountTools, type ToolSource } from './mount.js';
export {
  type ObservedScope,
  type OperationEvent,
  type OperationKind,
  observe,
  type TelemetryObserver,
  type ToolCallEnd,
  type ToolCallEvent,
  type ToolCallOutcome,
  type UpstreamRequestEnd,
  type UpstreamRequestEvent,
} from './observability/events.js';
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
export type { HostedCredentials, ProviderMetadata } from './provider-metadata.js';
export {
  DEFAULT_TIMEOUT_MS,
  globalToolRegistry,
  type RegistryReadiness,
  ToolRegistry,
  type ToolRegistryOptions,
  type ToolsAddedListener,
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
export { type CreateMcpServerOptions, createMcpServer } from './server.js';
export {
  needsSignIn,
  SignIn,
  type SignInFlow,
  type SignInOptions,
  type SignInOutcome,
  type StartedSignIn,
} from './sign-in.js';
export { CALL_TOOL, DESCRIBE_TOOL, SEARCH_TOOLS, type Surface } from './surface/search.js';
export {
  MemoryTaskStore,
  type StoredTask,
  TASKS_EXTENSION,
  TaskHost,
  type TaskOptions,
  type TaskStatus,
  type TaskStore,
  taskOwner,
} from './tasks.js';
export {
  type AnyToolDefinition,
  CREATES,
  DESTRUCTIVE,
  defineTool,
  type ProviderReadiness,
  READ_ONLY,
  type ReadinessCheck,
  type RequestInfo,
  SETS_STATE,
  type ToolAnnotations,
  type ToolContext,
  type ToolDefinition,
  type ToolProvider,
  type ToolsetInfo,
} from './tool.js';
export {
  renderToolRefs,
  renderToolRefsDeep,
  type ToolNamer,
  toolRef,
  toolRefsIn,
} from './tool-ref.js';
export type { EnabledToolset, ToolsetStatus } from './toolset-tools.js';
