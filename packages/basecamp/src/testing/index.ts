export {
  type FakeBasecamp,
  type FakeBasecampOptions,
  type FakeIdentity,
  type FakeLaunchpadLatency,
  type FakeLaunchpadOptions,
  type Fault,
  type RecordedRequest,
  startFakeBasecamp,
} from './fake-basecamp.js';
export { LAUNCHPAD_SESSION_COOKIE } from './fake-launchpad.js';
export {
  CARDS,
  CHECKINS,
  CLIENTS,
  type Family,
  type FamilyContext,
  TEMPLATE_ID,
} from './families/index.js';
export {
  ACCOUNT_ID,
  DOCK,
  GALLERY_MESSAGE_HTML,
  IDS,
  INACTIVE_ACCOUNT_ID,
  LAPTOP,
  LOCATOR,
  LONG_MESSAGE_HTML,
  OLD_SITE,
  PEOPLE,
  RICH_MESSAGE_HTML,
  SECOND_ACCOUNT_ID,
} from './fixtures.js';
export {
  createHostedSandbox,
  createSandbox,
  SANDBOX_PEOPLE,
  type SandboxPerson,
} from './sandbox.js';
