export {
  type ConnectedClient,
  connectHttp,
  connectInMemory,
  type SpawnedClient,
  spawnStdioClient,
} from './clients.js';
export { type DescribeToolProviderOptions, describeToolProvider } from './conformance.js';
export { type ConformanceOptions, conformanceProblems } from './conformance-checks.js';
export { type FuzzCase, fuzzCases } from './fuzz.js';
export {
  closedPort,
  type ProcessOptions,
  type RunningProcess,
  runProcess,
  startHttpBin,
  startProcess,
} from './processes.js';
export { errorBody, resultData, resultText } from './results.js';
