import { describe, expect, it } from 'vitest';
import { ASYNC_CONTEXT_FRAME, asyncContextFrameRestart } from './async-context.js';

const start = {
  args: ['--http', '--port', '0'],
  execArgv: [],
  nodeVersion: '22.23.3',
  env: {},
  canExec: true,
};

describe('asyncContextFrameRestart', () => {
  it('restarts an HTTP server on Node 22 and 23 with the flag after its own options', () => {
    expect(asyncContextFrameRestart(start)).toEqual([ASYNC_CONTEXT_FRAME]);
    expect(
      asyncContextFrameRestart({ ...start, nodeVersion: '23.11.0', execArgv: ['--import=x.mjs'] }),
    ).toEqual(['--import=x.mjs', ASYNC_CONTEXT_FRAME]);
  });

  it('leaves every other start alone', () => {
    // stdio (no --http), Node 20 (no such flag), Node 24+ (already the default), no execve.
    expect(asyncContextFrameRestart({ ...start, args: ['--read-only'] })).toBeUndefined();
    expect(asyncContextFrameRestart({ ...start, nodeVersion: '20.20.0' })).toBeUndefined();
    expect(asyncContextFrameRestart({ ...start, nodeVersion: '24.1.0' })).toBeUndefined();
    expect(asyncContextFrameRestart({ ...start, canExec: false })).toBeUndefined();
  });

  it('never restarts twice, nor against the operator’s choice either way', () => {
    expect(asyncContextFrameRestart({ ...start, execArgv: [ASYNC_CONTEXT_FRAME] })).toBeUndefined();
    expect(
      asyncContextFrameRestart({ ...start, execArgv: ['--no-experimental-async-context-frame'] }),
    ).toBeUndefined();
    expect(
      asyncContextFrameRestart({
        ...start,
        env: { NODE_OPTIONS: `--max-old-space-size=512 ${ASYNC_CONTEXT_FRAME}` },
      }),
    ).toBeUndefined();
  });
});
