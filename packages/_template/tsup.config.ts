// The shared build of the provider packages: see tsup.provider.ts at the repository root.
export { default } from '../../tsup.provider.js';
