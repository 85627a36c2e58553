#!/usr/bin/env node
// The bin inside this workspace: it exists before the first build, so `pnpm install` can link
// it without a warning, and it runs the build output; the published package runs
// dist/bin.js directly (publishConfig.bin).
await import('../dist/bin.js');
