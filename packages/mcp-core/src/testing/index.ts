export {
  type ConnectedClient,
  connectHttp,
  connectInMemory,
  type ModernRequest,
  modernHttpClient,
  type SpawnedClient,
  spawnStdioClient,
} from './clients.js';
export { type DescribeToolProviderOptions, describeToolProvider } from './conformance.js';
export { type ConformanceOptions, conformanceProblems } from './conformance-checks.js';
export {
  BYTES_PER_TOKEN,
  type ContextCost,
  contextCost,
  measureContextCost,
} from './context.js';
export {
  type FakeFault,
  type FakeHandler,
  type FakeReply,
  type FakeRequest,
  type FakeRoute,
  type FakeServer,
  type FakeServerOptions,
  parseBody,
  requestOperation,
  send,
  startFakeServer,
} from './fake-server.js';
export { type FuzzCase, fuzzCases } from './fuzz.js';
export {
  closedPort,
  type ProcessOptions,
  type RunningProcess,
  runProcess,
  startHttpBin,
  startProcess,
} from './processes.js';
export {
  type DescribeProviderBinOptions,
  type DescribeProviderConfigOptions,
  type DescribeProviderSettingsOptions,
  describeProviderBin,
  describeProviderConfig,
  describeProviderSettings,
  type ProviderSettingsCase,
  type RefusedSettingsCase,
  type UnconfiguredCase,
} from './provider-kit.js';
export { errorBody, resultData, resultText } from './results.js';
export { documentedSettingsProblems } from './settings.js';
