// The first module of every bundled bin (tsup.provider.ts builds it as dist/bin.js): it turns on
// Node's compile cache, then loads the bin's program from dist/bin/. The cache keeps V8's compiled
// code of every module loaded after the call, so from the second start on the bundle is not
// compiled again. `module.enableCompileCache` exists from Node 22.1; on Node 20 this is a no-op.
import module from 'node:module';

const { enableCompileCache } = module as { enableCompileCache?: () => unknown };
try {
  enableCompileCache?.();
} catch {
  // A cache that cannot be set up (read-only temp directory) only costs speed.
}

// A variable, so the bundler leaves this import alone: dist/bin/main.js is built next to this file.
const program = './bin/main.js';
await import(program);
