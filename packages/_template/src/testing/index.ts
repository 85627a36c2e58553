export { type FakeNotes, type FakeNotesOptions, SAMPLE_NOTES, startFakeNotes } from './fake.js';
export { createSandbox } from './sandbox.js';
