// The first module of every bundled bin (tsup.provider.ts builds it as dist/bin.js), kept to
// Node built-ins: it turns on Node's compile cache, runs the start cache's front, then loads the
// bin's program from dist/bin/. The compile cache keeps V8's compiled code of every module loaded
// after the call, so from the second start on the bundle is not compiled again;
// `module.enableCompileCache` exists from Node 22.1, on Node 20 this is a no-op. The front
// answers `initialize` and `tools/list` from the start cache when this exact start was seen
// before, and hands over to the program after (packages/mcp-core/src/start-cache/front.ts,
// docs/decisions/0016-start-cache.md). An HTTP server on Node 22 or 23 first restarts itself in
// place with --experimental-async-context-frame (start-cache/async-context.ts explains why).
import module from 'node:module';
import { asyncContextFrameRestart } from './packages/mcp-core/src/start-cache/async-context.js';
import { runFront } from './packages/mcp-core/src/start-cache/front.js';

const { execve } = process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never };
const restart = asyncContextFrameRestart({
  args: process.argv.slice(2),
  execArgv: process.execArgv,
  nodeVersion: process.versions.node,
  env: process.env,
  canExec: typeof execve === 'function',
});
if (restart && execve)
  execve(process.execPath, [process.execPath, ...restart, ...process.argv.slice(1)], process.env);

const { enableCompileCache } = module as { enableCompileCache?: () => unknown };
try {
  enableCompileCache?.();
} catch {
  // A cache that cannot be set up (read-only temp directory) only costs speed.
}

if ((await runFront({ launcherUrl: import.meta.url })) === 'load') {
  // A variable, so the bundler leaves this import alone: dist/bin/main.js is built next to this file.
  const program = './bin/main.js';
  await import(program);
}
