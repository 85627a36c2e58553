export {
  type FakeDeviceFlowOptions,
  type FakeForge,
  type FakeForgeOptions,
  type InjectedFailure,
  type RecordedRequest,
  startFakeForge,
} from './fake-forge.js';
export { defaultMembers, defaultTickets, FAKE_TEAM_ID, FAKE_USER, FAKE_USER_ID } from './fixtures.js';
export { createHostedSandbox, createSandbox } from './sandbox.js';
