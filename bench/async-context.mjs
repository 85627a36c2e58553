// What an AsyncLocalStorage that has run costs every await on this Node, with and without
// --experimental-async-context-frame (docs/benchmarks.md, "the async-hook tax on Node 22"):
//   node bench/async-context.mjs          # runs the four cases in fresh processes, medians of 5

import { AsyncLocalStorage } from 'node:async_hooks';
import { execFileSync } from 'node:child_process';

const AWAITS = 3_000_000;
if (process.argv[2] === 'case') {
  if (process.argv[3] === 'storage') new AsyncLocalStorage().run(1, () => {});
  let sum = 0;
  const start = performance.now();
  for (let index = 0; index < AWAITS; index++) sum += await Promise.resolve(index);
  process.stdout.write(String(performance.now() - start));
  process.exitCode = sum > 0 ? 0 : 1;
} else {
  const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const run = (flags, storage) =>
    median(
      Array.from({ length: 5 }, () =>
        Number(
          execFileSync(process.execPath, [...flags, import.meta.filename, 'case', storage], {
            encoding: 'utf8',
          }),
        ),
      ),
    );
  const frame = ['--experimental-async-context-frame'];
  const supported = Number(process.versions.node.split('.')[0]) >= 22;
  console.log(`Node ${process.version}, ${AWAITS.toLocaleString('en')} awaits, median of 5 (ms):`);
  console.log(`  no storage:                        ${run([], 'none').toFixed(0)}`);
  console.log(`  a storage has run:                 ${run([], 'storage').toFixed(0)}`);
  if (supported) {
    console.log(`  no storage, async context frame:   ${run(frame, 'none').toFixed(0)}`);
    console.log(`  a storage, async context frame:    ${run(frame, 'storage').toFixed(0)}`);
  }
}
