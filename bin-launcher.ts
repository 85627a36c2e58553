// The first module of every bundled bin (tsup.provider.ts builds it as dist/bin.js), kept to
// Node built-ins: it turns on Node's compile cache, then loads the bin's program from dist/bin/.
// The compile cache keeps V8's compiled code of every module loaded after the call, so from the
// second start on the bundle is not compiled again; `module.enableCompileCache` exists from
// Node 22.1, on Node 20 this is a no-op. An HTTP server first restarts itself in place with the
// Node options it is served best with (launcher/http-node-options.ts says which and why).
import module from 'node:module';
import { httpServerRestart } from './packages/mcp-core/src/launcher/http-node-options.js';

const { execve } = process as { execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never };
const restart = httpServerRestart({
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

// A variable, so the bundler leaves this import alone: dist/bin/main.js is built next to this file.
const program = './bin/main.js';
await import(program);
