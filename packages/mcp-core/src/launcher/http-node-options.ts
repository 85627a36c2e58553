/**
 * What an HTTP server's Node is started with, set once by the launcher, which restarts the server
 * in place (`process.execve`, same pid) when a flag is missing. Node built-ins only: the launcher
 * runs it first.
 *
 * - `--experimental-async-context-frame` (Node 22 and 23; the default from Node 24). Without it
 *   `AsyncLocalStorage` is built on async hooks: once any storage has been entered, every promise
 *   the process creates pays for a hook, and an `await` costs about five times as much. An HTTP
 *   server enters one on every request as soon as it logs per request, traces, or signs people in
 *   (oidc-provider keeps its request context in one), which cost the hosted server a third of its
 *   throughput.
 * - `--max-semi-space-size=32` (V8's young generation: twice 32 MiB instead of twice 16). Under
 *   concurrent requests, objects that live for one request outlive two 16 MiB scavenges often
 *   enough that V8 promotes some 50–60 KB per tool call to the old space, where each is copied
 *   again, faults in fresh pages and is marked by the next major collection. With 32 MiB most of
 *   them die young: the hosted server (`--auth oauth`) spends about 11 % less CPU per call, the
 *   token mode the same (docs/benchmarks.md, issue #23), for at most 32 MiB more memory.
 */

export const ASYNC_CONTEXT_FRAME = '--experimental-async-context-frame';
export const SEMI_SPACE = '--max-semi-space-size=32';

export interface HttpServerStart {
  /** The bin's arguments (after the script). */
  args: readonly string[];
  /** `process.execArgv`. */
  execArgv: readonly string[];
  /** `process.versions.node`. */
  nodeVersion: string;
  env: NodeJS.ProcessEnv;
  /** Whether `process.execve` exists (Node 22.15+, 23.11+; not on Windows). */
  canExec: boolean;
}

/**
 * The Node options to restart with, or `undefined` to go on as started: only for `--http`, only
 * where the process can be replaced in place, and only when a flag is missing. A flag the command
 * line or `NODE_OPTIONS` names (either way round, any value) is the operator's choice and left alone.
 */
export function httpServerRestart(start: HttpServerStart): string[] | undefined {
  if (!start.canExec || !start.args.includes('--http')) return undefined;
  const named = [...start.execArgv, ...(start.env.NODE_OPTIONS ?? '').split(/\s+/)];
  const missing = (suffix: string) => !named.some((option) => option.split('=')[0]?.endsWith(suffix));
  const major = Number(start.nodeVersion.split('.')[0]);
  const added = [
    ...((major === 22 || major === 23) && missing('async-context-frame') ? [ASYNC_CONTEXT_FRAME] : []),
    ...(missing('semi-space-size') ? [SEMI_SPACE] : []),
  ];
  return added.length > 0 ? [...start.execArgv, ...added] : undefined;
}
