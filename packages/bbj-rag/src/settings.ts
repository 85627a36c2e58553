import { ConfigError } from '@x/mcp-core';

export const DEFAULT_API_URL = 'http://localhost:10800';
export const DEFAULT_COMPILER_PATH = 'bbjcpl';
export const DEFAULT_COMPILER_TIMEOUT_SECONDS = 10;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** The compiler must finish well inside the registry's default 60 s call budget. */
export const MAX_COMPILER_TIMEOUT_SECONDS = 50;
export const MAX_REQUEST_TIMEOUT_MS = 120_000;

export interface BbjRagSettings {
  /** Base URL of the BBj RAG REST service. Default: `$BBJ_RAG_API_URL`, then `http://localhost:10800`. */
  apiUrl?: string;
  /** The BBj compiler command (a path or a name on `PATH`). Default: `$BBJ_RAG_COMPILER_PATH`, then `bbjcpl`. */
  compilerPath?: string;
  /** Seconds before a compiler run is killed (0 < n ≤ 50). Default: `$BBJ_RAG_COMPILER_TIMEOUT`, then 10. */
  compilerTimeoutSeconds?: number;
  /** Milliseconds one REST request may take (0 < n ≤ 120000). Default: 30000. */
  requestTimeoutMs?: number;
  /** A `fetch` implementation, e.g. to add a proxy. Default: the global `fetch`. */
  fetch?: typeof fetch;
}

export interface ApiSettings {
  apiUrl: string;
  requestTimeoutMs: number;
  fetch: typeof fetch;
}

export interface CompilerSettings {
  compilerPath: string;
  compilerTimeoutSeconds: number;
}

/** Reads settings and the environment when a tool first needs them, never at import. */
export function resolveApiSettings(settings: BbjRagSettings): ApiSettings {
  const raw = settings.apiUrl ?? nonEmpty(process.env.BBJ_RAG_API_URL) ?? DEFAULT_API_URL;
  const origin = settings.apiUrl === undefined && process.env.BBJ_RAG_API_URL ? 'BBJ_RAG_API_URL' : 'apiUrl';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(
      `${origin} is not a valid URL: "${truncate(raw)}". Set it to the BBj RAG REST service, e.g. ${DEFAULT_API_URL}.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(
      `${origin} must be an http(s) URL, got "${truncate(raw)}". Set it to the BBj RAG REST service, e.g. ${DEFAULT_API_URL}.`,
    );
  }
  if (url.username || url.password) {
    throw new ConfigError(`${origin} must not contain credentials.`);
  }
  const requestTimeoutMs = settings.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  if (
    !(Number.isFinite(requestTimeoutMs) && requestTimeoutMs > 0 && requestTimeoutMs <= MAX_REQUEST_TIMEOUT_MS)
  ) {
    throw new ConfigError(
      `requestTimeoutMs must be a number of milliseconds between 1 and ${MAX_REQUEST_TIMEOUT_MS}, got ${requestTimeoutMs}.`,
    );
  }
  return {
    // Keep any path prefix (a reverse proxy may serve the API under one), without a trailing slash.
    apiUrl: url.href.replace(/\/+$/, ''),
    requestTimeoutMs,
    fetch: settings.fetch ?? globalThis.fetch,
  };
}

export function resolveCompilerSettings(settings: BbjRagSettings): CompilerSettings {
  const compilerPath =
    settings.compilerPath ?? nonEmpty(process.env.BBJ_RAG_COMPILER_PATH) ?? DEFAULT_COMPILER_PATH;
  if (compilerPath.trim() === '' || compilerPath.includes('\u0000')) {
    throw new ConfigError('compilerPath must be a non-empty path or command name.');
  }
  let compilerTimeoutSeconds = settings.compilerTimeoutSeconds;
  let origin = 'compilerTimeoutSeconds';
  let raw = String(compilerTimeoutSeconds);
  if (compilerTimeoutSeconds === undefined) {
    const fromEnv = nonEmpty(process.env.BBJ_RAG_COMPILER_TIMEOUT);
    origin = 'BBJ_RAG_COMPILER_TIMEOUT';
    raw = fromEnv ?? '';
    compilerTimeoutSeconds = fromEnv === undefined ? DEFAULT_COMPILER_TIMEOUT_SECONDS : Number(fromEnv);
  }
  if (
    !(
      Number.isFinite(compilerTimeoutSeconds) &&
      compilerTimeoutSeconds > 0 &&
      compilerTimeoutSeconds <= MAX_COMPILER_TIMEOUT_SECONDS
    )
  ) {
    throw new ConfigError(
      `${origin} must be a number of seconds greater than 0 and at most ${MAX_COMPILER_TIMEOUT_SECONDS}, got "${truncate(raw)}".`,
    );
  }
  return { compilerPath, compilerTimeoutSeconds };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function truncate(value: string): string {
  return value.length > 200 ? `${value.slice(0, 200)}…` : value;
}
