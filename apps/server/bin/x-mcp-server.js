#!/usr/bin/env node
// The bin inside this workspace: it exists before the first build, so `pnpm install` can link
// it without a warning, and it runs the build output; this app is not published. In a checkout
// that has not been built, one line names the step instead of Node's ERR_MODULE_NOT_FOUND stack.
import { existsSync } from 'node:fs';

const bin = new URL('../dist/bin.js', import.meta.url);
if (!existsSync(bin)) {
  process.stderr.write(
    'x-mcp-server: not built in this checkout (apps/server/dist/bin.js is missing): run `pnpm build` at the repository root, then run this again.\n',
  );
  process.exit(1);
}
await import(bin.href);
