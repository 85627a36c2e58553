// Loaded into a server process by `bench/hosted.mjs --cpu-prof <dir>` (`node --import`): a V8 CPU
// profile of the measured phase only. The first SIGUSR2 starts the profiler and writes
// `<file>.started`; the second writes the profile to `<file>` (X_BENCH_PROFILE) and then `<file>.done`.
// With X_BENCH_ALLOC (`--alloc-prof <dir>`), V8's sampling heap profiler instead: every allocation
// of the phase, collected or not, sampled every 4 KiB (a `.heapprofile`); with X_BENCH_ALLOC=promoted
// (`--alloc-prof <dir> --promoted`), only what outlived the young generation's collections (what
// was promoted to the old space, where the costly collections and page faults are).
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';

const file = process.env.X_BENCH_PROFILE;
if (file) {
  const session = new Session();
  session.connect();
  const post = (method, params) =>
    new Promise((resolve, reject) =>
      session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
    );
  const alloc = Boolean(process.env.X_BENCH_ALLOC);
  let running = false;
  process.on('SIGUSR2', async () => {
    if (!running) {
      running = true;
      if (alloc) {
        await post('HeapProfiler.enable');
        await post('HeapProfiler.startSampling', {
          samplingInterval: 4096,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: process.env.X_BENCH_ALLOC !== 'promoted',
        });
      } else {
        await post('Profiler.enable');
        await post('Profiler.start');
      }
      writeFileSync(`${file}.started`, '');
    } else {
      running = false;
      const { profile } = await post(alloc ? 'HeapProfiler.stopSampling' : 'Profiler.stop');
      writeFileSync(file, JSON.stringify(profile));
      writeFileSync(`${file}.done`, '');
    }
  });
}
