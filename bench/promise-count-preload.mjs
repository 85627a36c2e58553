// Loaded with `bench/hosted.mjs --gc-stats <dir> --node-options=--import=<this file>`: counts the
// promises each server creates during the measured phase (a promise hook: it slows the server, so
// read the count, not the timings, of such a run). SIGUSR2 starts and stops the count, as for
// gc-preload.mjs; the count goes to `<X_BENCH_GC>.promises`, and the round's line shows it per call.
import { createHook } from 'node:async_hooks';
import { writeFileSync } from 'node:fs';

const file = process.env.X_BENCH_GC;
if (file) {
  let promises = 0;
  let counting = false;
  createHook({
    init(_id, type) {
      if (counting && type === 'PROMISE') promises++;
    },
  }).enable();
  process.on('SIGUSR2', () => {
    if (!counting) {
      promises = 0;
      counting = true;
    } else {
      counting = false;
      writeFileSync(`${file}.promises`, String(promises));
    }
  });
}
