// Loaded into a server process by `bench/hosted.mjs --gc-stats <dir>` (`node --import`): the
// garbage collections of the measured phase. The first SIGUSR2 starts counting and writes
// `<file>.started`; the second writes the counts (by kind, with their pause time) and V8's heap
// spaces to `<file>` (X_BENCH_GC) and then `<file>.done`.
import { writeFileSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';

const file = process.env.X_BENCH_GC;
if (file) {
  const KINDS = {
    [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
    [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
  };
  let counts;
  const observer = new PerformanceObserver((list) => {
    if (!counts) return;
    for (const entry of list.getEntries()) {
      const kind = KINDS[entry.detail?.kind] ?? String(entry.detail?.kind);
      counts[kind] ??= { count: 0, ms: 0 };
      const count = counts[kind];
      count.count++;
      count.ms += entry.duration;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  process.on('SIGUSR2', () => {
    if (!counts) {
      counts = {};
      writeFileSync(`${file}.started`, '');
    } else {
      const spaces = Object.fromEntries(
        getHeapSpaceStatistics().map((space) => [space.space_name, Math.round(space.space_size / 1024)]),
      );
      writeFileSync(file, JSON.stringify({ gc: counts, heapKiB: spaces, heap: getHeapStatistics() }));
      counts = undefined;
      writeFileSync(`${file}.done`, '');
    }
  });
}
