/**
 * Node 22 and 23 implement `AsyncLocalStorage` with async hooks unless started with
 * `--experimental-async-context-frame` (the default from Node 24). Once any storage has been
 * entered, every promise the process creates pays for a hook: an `await` costs about five times
 * as much. An HTTP server enters one on every request as soon as it logs per request, traces, or
 * signs people in (oidc-provider keeps its request context in one), which cost the hosted server
 * a third of its throughput. So the launcher restarts an HTTP server once, in place
 * (`process.execve`, same pid), with the flag. Node built-ins only: the launcher runs it first.
 */

export const ASYNC_CONTEXT_FRAME = '--experimental-async-context-frame';

export interface AsyncContextStart {
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
 * The Node options to restart with, or `undefined` to go on as started: only for `--http`,
 * only on Node 22.x and 23.x, only when neither the command line nor `NODE_OPTIONS` names the
 * flag (either way round), and only where the process can be replaced in place.
 */
export function asyncContextFrameRestart(start: AsyncContextStart): string[] | undefined {
  if (!start.canExec || !start.args.includes('--http')) return undefined;
  const major = Number(start.nodeVersion.split('.')[0]);
  if (major !== 22 && major !== 23) return undefined;
  const named = (option: string) => option.endsWith('async-context-frame');
  if (start.execArgv.some(named) || (start.env.NODE_OPTIONS ?? '').split(/\s+/).some(named)) return undefined;
  return [...start.execArgv, ASYNC_CONTEXT_FRAME];
}
