/**
 * A logger that writes one line per event to stderr. stdout belongs to JSON-RPC on
 * stdio servers, so nothing here ever touches it. Lines are text by default, or one JSON
 * object each with `MCP_LOG_FORMAT=json` (for log collectors). Lines go through one buffered
 * sink per process (`log-sink.ts`): a log call costs a few microseconds and no system call.
 */
import { stderrLogSink } from './log-sink.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(scope: string): Logger;
}

const LEVELS: Record<LogLevel | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };
const SECRET_KEY = /token|secret|password|passwd|authorization|cookie|api[-_]?key|credential/i;
const REDACTED = '[redacted]';

/** Replaces values under secret-looking keys, at any depth, so logs never carry credentials. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1));
  if (value instanceof Error) return { name: value.name, message: value.message };
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] = SECRET_KEY.test(key) ? REDACTED : redact(inner, depth + 1);
  }
  return out;
}

function levelFromEnv(): LogLevel | 'silent' {
  const raw = process.env.MCP_LOG_LEVEL?.toLowerCase();
  return raw && raw in LEVELS ? (raw as LogLevel | 'silent') : 'info';
}

export type LogFormat = 'text' | 'json';

/** `MCP_LOG_FORMAT`: `json` for one JSON object per line; anything else is text. */
export function logFormatFromEnv(env: Record<string, string | undefined> = process.env): LogFormat {
  return env.MCP_LOG_FORMAT?.toLowerCase() === 'json' ? 'json' : 'text';
}

type LogContext = () => object | undefined;
let logContext: LogContext | undefined;

/**
 * Fields added to every JSON line written while they apply, e.g. the request id and hashed
 * user of the HTTP request being served. Set by `serveHttp`; returns the previous provider.
 */
export function setLogContext(provider: LogContext | undefined): LogContext | undefined {
  const previous = logContext;
  logContext = provider;
  return previous;
}

export interface LoggerOptions {
  /** Lowest level written; defaults to `MCP_LOG_LEVEL` or `info`. */
  level?: LogLevel | 'silent';
  /** Text lines or JSON objects; defaults to `MCP_LOG_FORMAT` or `text`. */
  format?: LogFormat;
  /**
   * Where lines go; defaults to stderr through the process's buffered sink (batched writes,
   * flushed at exit, bounded while the reader is behind).
   */
  write?: (line: string) => void;
}

/** The line that stands for lines the stderr sink had to drop, in the format of the logs. */
function dropNotice(json: boolean): (count: number) => string {
  return (count) => {
    const message = `${count} log lines dropped (stderr was not being read fast enough)`;
    return json
      ? `${JSON.stringify({ time: new Date().toISOString(), level: 'warn', scope: 'logger', message, dropped: count })}\n`
      : `[logger] warn: ${message}\n`;
  };
}

export function createLogger(scope: string, options: LoggerOptions = {}): Logger {
  const threshold = LEVELS[options.level ?? levelFromEnv()];
  const json = (options.format ?? logFormatFromEnv()) === 'json';
  const write = options.write ?? stderrWriter(json);
  const emit = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (LEVELS[level] < threshold) return;
    if (json) {
      const line = {
        ...(fields ? (redact(fields) as Record<string, unknown>) : undefined),
        ...logContext?.(),
        time: new Date().toISOString(),
        level,
        scope,
        message,
      };
      write(`${safeJson(line)}\n`);
      return;
    }
    const suffix = fields && Object.keys(fields).length > 0 ? ` ${safeJson(redact(fields))}` : '';
    write(`[${scope}] ${level}: ${message}${suffix}\n`);
  };
  return {
    debug: (message, fields) => emit('debug', message, fields),
    info: (message, fields) => emit('info', message, fields),
    warn: (message, fields) => emit('warn', message, fields),
    error: (message, fields) => emit('error', message, fields),
    child: (child) => createLogger(`${scope}:${child}`, options),
  };
}

function stderrWriter(json: boolean): (line: string) => void {
  const sink = stderrLogSink(dropNotice(json));
  return (line) => sink.write(line);
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return '"[unserialisable]"';
  }
}
