/**
 * The start cache's front: run by every bin's launcher (bin-launcher.ts) before the program
 * loads, with Node built-ins only. When an entry for this exact start (program, arguments,
 * working directory, environment) exists and every file it depends on is unchanged, it answers
 * `initialize`, `ping` and `tools/list` from the entry, byte for byte what the server wrote when
 * the entry was made, and hands over to the real server on the first other message or right
 * after `tools/list`. Anything it does not fully understand is handed over unanswered.
 * docs/decisions/0016-start-cache.md explains why it cannot give a wrong answer.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  ENTRY_FORMAT,
  type FrontHandover,
  HANDOVER_KEY,
  SENTINEL_SUFFIXES,
  type StartCacheEntry,
  type StartCacheHandover,
} from './shared.js';

/** `load`: import the program now (with or without a hand-over); `exit`: stdin ended, nothing to do. */
export type FrontOutcome = 'load' | 'exit';

/** `MCP_START_CACHE=off` (or 0, false, no) turns the start cache off: no front, no entries written. */
export function startCacheEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return !/^(off|0|false|no)$/i.test(env.MCP_START_CACHE ?? '');
}

/**
 * Whether these arguments serve MCP over stdio in a mode the cache covers: not a subcommand
 * (`login` …, or a usage error), not `--help`, `--version`, `--http` or `--sandbox` (its fake
 * upstream is started per process). Short flags are left out wholesale: that errs on the side
 * of no cache.
 */
export function cacheableArgs(args: readonly string[]): boolean {
  const first = args[0];
  if (first !== undefined && !first.startsWith('-')) return false;
  return !args.some((arg) => /^-[^-]/.test(arg) || /^--(help|version|http|sandbox)(=|$)/.test(arg));
}

/** The directory of every bin's entries. */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MCP_START_CACHE_DIR) return env.MCP_START_CACHE_DIR;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'x-mcp', 'start');
  const home = homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Caches', 'x-mcp', 'start');
  if (process.platform === 'win32') {
    return join(env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'), 'x-mcp', 'start');
  }
  return join(home, '.cache', 'x-mcp', 'start');
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * The key of one start: the launcher (which program), the Node version and flags, the arguments,
 * the working directory and the whole environment. Only the hash is stored, never a value.
 */
export function startKey(input: {
  launcher: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}): string {
  const env = Object.entries(input.env)
    .filter((pair): pair is [string, string] => pair[1] !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return sha256(
    JSON.stringify([
      ENTRY_FORMAT,
      process.version,
      process.execArgv,
      input.launcher,
      input.args,
      input.cwd,
      env,
    ]),
  );
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/** The entry if `value` is a well-formed one of this format and key; otherwise why not. */
export function parseEntry(value: unknown, key: string): StartCacheEntry | string {
  if (!isObject(value)) return 'not an object';
  if (value.format !== ENTRY_FORMAT) return `format ${String(value.format)}`;
  if (value.key !== key) return 'another key';
  const { files, contents, protocolVersions, initialize, toolsList } = value;
  const validFiles =
    Array.isArray(files) &&
    files.every(
      (item) =>
        Array.isArray(item) &&
        item.length === 3 &&
        typeof item[0] === 'string' &&
        typeof item[1] === 'number' &&
        typeof item[2] === 'number',
    );
  const validContents =
    Array.isArray(contents) &&
    contents.every(
      (item) =>
        Array.isArray(item) &&
        item.length === 2 &&
        typeof item[0] === 'string' &&
        (item[1] === null || typeof item[1] === 'string'),
    );
  if (!validFiles || !validContents) return 'malformed file checks';
  if (!isStringArray(protocolVersions) || protocolVersions.length === 0) return 'malformed protocol versions';
  if (typeof initialize !== 'string' || typeof toolsList !== 'string') return 'malformed results';
  return value as unknown as StartCacheEntry;
}

/** Undefined when every file the entry depends on is as it was; otherwise the first that changed. */
export function changedFile(entry: StartCacheEntry): string | undefined {
  for (const [path, size, mtimeMs] of entry.files) {
    const stats = statSync(path, { throwIfNoEntry: false });
    if (!stats || stats.size !== size || stats.mtimeMs !== mtimeMs) return path;
  }
  for (const [path, hash] of entry.contents) {
    let actual: string | null;
    try {
      actual = sha256(readFileSync(path));
    } catch {
      actual = null;
    }
    if (actual !== hash) return path;
  }
  return undefined;
}

/** The version the SDK answers `initialize` with: the requested one when supported, else its latest. */
export function negotiate(requested: string, supported: readonly string[]): string {
  return supported.includes(requested) ? requested : (supported[0] as string);
}

type Message = { jsonrpc: '2.0'; id?: string | number; method?: string; params?: unknown };

/** A JSON-RPC request or notification of the plain shape the front may answer; anything else is not. */
function plainMessage(line: string): Message | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isObject(value) || value.jsonrpc !== '2.0' || typeof value.method !== 'string') return undefined;
  if (
    !Object.keys(value).every(
      (key) => key === 'jsonrpc' || key === 'id' || key === 'method' || key === 'params',
    )
  ) {
    return undefined;
  }
  if ('id' in value && !(typeof value.id === 'string' || Number.isSafeInteger(value.id))) return undefined;
  if ('params' in value && !isObject(value.params)) return undefined;
  return value as Message;
}

const isEmpty = (params: unknown) =>
  params === undefined || (isObject(params) && Object.keys(params).length === 0);

const stringsOnly = (value: Record<string, unknown>, keys: readonly string[]) =>
  Object.entries(value).every(([key, inner]) => keys.includes(key) && typeof inner === 'string');

/**
 * `initialize` params the SDK accepts for certain (a strict subset of its schema): a string
 * version, client info of plain strings, and capabilities whose known members have the plain
 * shapes clients send. No `_meta` (a 2026 envelope claim changes the era). Anything else is
 * handed to the real server.
 */
export function plainInitializeParams(params: unknown): params is {
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  clientInfo: Record<string, unknown>;
} {
  if (!isObject(params)) return false;
  if (!Object.keys(params).every((key) => ['protocolVersion', 'capabilities', 'clientInfo'].includes(key))) {
    return false;
  }
  const { protocolVersion, capabilities, clientInfo } = params;
  if (typeof protocolVersion !== 'string' || !isObject(capabilities) || !isObject(clientInfo)) return false;
  if (typeof clientInfo.name !== 'string' || typeof clientInfo.version !== 'string') return false;
  if (!stringsOnly(clientInfo, ['name', 'version', 'title', 'websiteUrl', 'description'])) return false;
  const objectsOnly = (value: unknown) => isObject(value) && Object.values(value).every(isObject);
  return Object.entries(capabilities).every(([name, value]) => {
    switch (name) {
      case 'roots':
        return (
          isObject(value) &&
          Object.entries(value).every(([key, inner]) => key === 'listChanged' && typeof inner === 'boolean')
        );
      case 'sampling':
        return (
          objectsOnly(value) &&
          Object.keys(value as object).every((key) => key === 'context' || key === 'tools')
        );
      case 'elicitation':
        return (
          objectsOnly(value) &&
          Object.entries(value as object).every(
            ([key, inner]) =>
              key === 'url' ||
              (key === 'form' &&
                (inner.applyDefaults === undefined || typeof inner.applyDefaults === 'boolean')),
          )
        );
      case 'experimental':
      case 'extensions':
        return objectsOnly(value);
      case 'tasks':
        return false;
      default:
        // Members the SDK does not know are dropped by its schema, whatever they hold.
        return true;
    }
  });
}

const response = (resultText: string, id: string | number) =>
  `{"result":${resultText},"jsonrpc":"2.0","id":${JSON.stringify(id)}}\n`;

interface FrontOptions {
  /** `import.meta.url` of the launcher: the program is `bin/main.js` next to it. */
  launcherUrl: string;
  args?: readonly string[];
  env?: NodeJS.ProcessEnv;
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  output?: NodeJS.WritableStream;
}

/**
 * Runs the front. Resolves `load` when the program must be imported (no usable entry, or time
 * to hand over; the hand-over is then in `globalThis[HANDOVER_KEY]`), or `exit` when stdin
 * ended with every request answered.
 */
export function runFront(options: FrontOptions): Promise<FrontOutcome> {
  const env = options.env ?? process.env;
  const args = options.args ?? process.argv.slice(2);
  const input = (options.input ?? process.stdin) as NodeJS.ReadStream;
  if (!startCacheEnabled(env) || !cacheableArgs(args) || input.isTTY) return Promise.resolve('load');
  const debug = /^debug$/i.test(env.MCP_LOG_LEVEL ?? '');
  const log = (message: string) => {
    if (!debug) return;
    process.stderr.write(
      /^json$/i.test(env.MCP_LOG_FORMAT ?? '')
        ? `${JSON.stringify({ time: new Date().toISOString(), level: 'debug', scope: 'start-cache', message })}\n`
        : `[start-cache] debug: ${message}\n`,
    );
  };
  let handover: StartCacheHandover;
  let entry: StartCacheEntry;
  try {
    const launcher = realpathSync(new URL(options.launcherUrl));
    const key = startKey({ launcher, args, cwd: process.cwd(), env });
    const dir = join(cacheRoot(env), sha256(launcher).slice(0, 16));
    const entryPath = join(dir, `${key}.json`);
    handover = { entryPath, dir, key, launcher, program: join(dirname(launcher), 'bin', 'main.js') };
    (globalThis as Record<symbol, unknown>)[HANDOVER_KEY] = handover;
    let text: string;
    try {
      text = readFileSync(entryPath, 'utf8');
    } catch {
      log('miss: no entry');
      return Promise.resolve('load');
    }
    let parsed: StartCacheEntry | string;
    try {
      parsed = parseEntry(JSON.parse(text), key);
    } catch {
      parsed = 'not JSON';
    }
    if (typeof parsed === 'string') {
      log(`miss: unusable entry (${parsed})`);
      return Promise.resolve('load');
    }
    const changed = changedFile(parsed);
    if (changed !== undefined) {
      log(`miss: ${changed} changed`);
      return Promise.resolve('load');
    }
    entry = parsed;
  } catch (error) {
    // A cache that cannot be read (no home directory, a broken path) only costs speed.
    log(`miss: ${(error as Error).message}`);
    return Promise.resolve('load');
  }
  log(`hit: answering from ${handover.entryPath}`);
  return serveFront(input, options.output ?? process.stdout, handover, entry, log);
}

function serveFront(
  input: NodeJS.ReadStream,
  output: NodeJS.WritableStream,
  handover: StartCacheHandover,
  entry: StartCacheEntry,
  log: (message: string) => void,
): Promise<FrontOutcome> {
  return new Promise((resolve) => {
    const sentinelId = `x-mcp-start-cache:${randomBytes(12).toString('hex')}`;
    let pending = Buffer.alloc(0);
    let initialize: Message | undefined;
    let protocolVersion: string | undefined;
    let initialized: string | undefined;
    let answeredToolsList = false;
    /** No more lines are answered (tools/list answered, or handing over). */
    let done = false;
    let handedOver = false;
    const ignoreOutputError = () => {};
    output.on('error', ignoreOutputError);
    // As the real server does on a signal: stop and exit 0.
    const onSignal = () => process.exit(0);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);

    const stop = () => {
      done = true;
      input.off('readable', onReadable);
      input.off('end', onEnd);
      output.off('error', ignoreOutputError);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    };
    const handOver = () => {
      if (handedOver) return;
      handedOver = true;
      stop();
      const next = pending.subarray(0, Math.max(0, pending.indexOf(10))).toString('utf8');
      log(
        `handing over ${answeredToolsList ? 'after tools/list' : `at ${/"method"\s*:\s*"([^"]*)"/.exec(next)?.[1] ?? 'a line it does not answer'}`}`,
      );
      if (pending.length > 0 || initialize) handover.prelude = pending;
      if (initialize && protocolVersion) {
        const lines = [
          JSON.stringify({ ...initialize, id: `${sentinelId}${SENTINEL_SUFFIXES.initialize}` }),
          ...(initialized === undefined ? [] : [initialized]),
          JSON.stringify({
            jsonrpc: '2.0',
            id: `${sentinelId}${SENTINEL_SUFFIXES.toolsList}`,
            method: 'tools/list',
          }),
        ];
        const front: FrontHandover = { entry, sentinelId, protocolVersion, answeredToolsList };
        handover.front = front;
        handover.prelude = Buffer.concat([Buffer.from(`${lines.join('\n')}\n`), pending]);
      }
      // Without an answered initialize the real server reads the input as if the front had not been there.
      resolve('load');
    };

    /** Answers one line, or returns false when the real server must have it (and all after it). */
    const answer = (line: string): boolean => {
      if (line.trim() === '') return true;
      const message = plainMessage(line);
      if (!message) return false;
      const { id, method, params } = message;
      if (!initialize) {
        if (method !== 'initialize' || id === undefined || !plainInitializeParams(params)) return false;
        protocolVersion = negotiate(params.protocolVersion, entry.protocolVersions);
        initialize = message;
        output.write(
          response(`{"protocolVersion":${JSON.stringify(protocolVersion)},${entry.initialize}`, id),
        );
        return true;
      }
      if (
        method === 'notifications/initialized' &&
        id === undefined &&
        initialized === undefined &&
        isEmpty(params)
      ) {
        initialized = line;
        return true;
      }
      if (method === 'ping' && id !== undefined && isEmpty(params)) {
        output.write(response('{}', id));
        return true;
      }
      if (method === 'tools/list' && id !== undefined && isEmpty(params)) {
        output.write(response(entry.toolsList, id));
        answeredToolsList = true;
        // Load now, so the first call does not wait for it; the rest of the input is the server's.
        done = true;
        setImmediate(handOver);
        return true;
      }
      return false;
    };

    const drainLines = (atEnd: boolean) => {
      while (!done) {
        let newline = pending.indexOf(10);
        if (newline === -1) {
          if (!atEnd || pending.length === 0) return;
          newline = pending.length;
        }
        const line = pending.subarray(0, newline).toString('utf8').replace(/\r$/, '');
        if (!answer(line)) {
          handOver();
          return;
        }
        pending = pending.subarray(Math.min(newline + 1, pending.length));
      }
    };

    const onReadable = () => {
      let chunk: Buffer | string | null = input.read();
      while (chunk !== null) {
        pending = Buffer.concat([pending, typeof chunk === 'string' ? Buffer.from(chunk) : chunk]);
        chunk = input.read();
      }
      drainLines(false);
    };
    const onEnd = () => {
      if (done) return;
      drainLines(true);
      if (done) return;
      // Every request was answered: the real server would close now, and so does the front.
      stop();
      resolve('exit');
    };
    input.on('readable', onReadable);
    input.on('end', onEnd);
  });
}
