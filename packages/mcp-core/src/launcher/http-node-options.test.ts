import { describe, expect, it } from 'vitest';
import { ASYNC_CONTEXT_FRAME, httpServerRestart, SEMI_SPACE } from './http-node-options.js';

const start = {
  args: ['--http', '--port', '0'],
  execArgv: [],
  nodeVersion: '22.23.3',
  env: {},
  canExec: true,
};

describe('httpServerRestart', () => {
  it('restarts an HTTP server with the missing flags after its own options', () => {
    expect(httpServerRestart(start)).toEqual([ASYNC_CONTEXT_FRAME, SEMI_SPACE]);
    expect(httpServerRestart({ ...start, nodeVersion: '23.11.0', execArgv: ['--import=x.mjs'] })).toEqual([
      '--import=x.mjs',
      ASYNC_CONTEXT_FRAME,
      SEMI_SPACE,
    ]);
    // Node 24+: the async context frame is the default; the young generation is not.
    expect(httpServerRestart({ ...start, nodeVersion: '24.1.0' })).toEqual([SEMI_SPACE]);
  });

  it('leaves every other start alone', () => {
    // stdio (no --http), no execve (Node 20, Windows).
    expect(httpServerRestart({ ...start, args: ['--read-only'] })).toBeUndefined();
    expect(httpServerRestart({ ...start, nodeVersion: '20.20.0', canExec: false })).toBeUndefined();
  });

  it('never restarts twice, nor against the operator’s choice either way', () => {
    expect(httpServerRestart({ ...start, execArgv: [ASYNC_CONTEXT_FRAME, SEMI_SPACE] })).toBeUndefined();
    expect(
      httpServerRestart({
        ...start,
        execArgv: ['--no-experimental-async-context-frame', '--max-semi-space-size=8'],
      }),
    ).toBeUndefined();
    expect(
      httpServerRestart({
        ...start,
        env: { NODE_OPTIONS: `--max-old-space-size=512 ${ASYNC_CONTEXT_FRAME} --max-semi-space-size 64` },
      }),
    ).toBeUndefined();
    // One named, the other still added.
    expect(httpServerRestart({ ...start, env: { NODE_OPTIONS: '--max-semi-space-size=64' } })).toEqual([
      ASYNC_CONTEXT_FRAME,
    ]);
  });
});
