export { type FakeChunk, SAMPLE_CORPUS } from './corpus.js';
export {
  type BackendState,
  type FakeBbjRag,
  type FakeBbjRagOptions,
  parseSearchRequest,
  type RecordedRequest,
  startFakeBbjRag,
} from './fake-server.js';
export { createSandbox } from './sandbox.js';
