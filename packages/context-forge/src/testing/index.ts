export {
  createExampleStore,
  type ExampleStore,
  type ExampleStoreOptions,
  writeProjectFiles,
} from './example-store.js';
export { EXAMPLE_PROMPT_FILE, EXAMPLE_STATEMENTS_FILE } from './prompt-file.js';
export { createSandbox } from './sandbox.js';
