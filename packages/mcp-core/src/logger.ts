/**
 * A logger that writes one line per event to stderr. stdout belongs to JSON-RPC on
 * stdio servers, so nothing here ever touches it.
 */

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

export interface LoggerOptions {
  /** Lowest level written; defaults to `MCP_LOG_LEVEL` or `info`. */
  level?: LogLevel | 'silent';
  /** Where lines go; defaults to `process.stderr`. */
  write?: (line: string) => void;
}

export function createLogger(scope: string, options: LoggerOptions = {}): Logger {
  const threshold = LEVELS[options.level ?? levelFromEnv()];
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const emit = (level: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (LEVELS[level] < threshold) return;
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

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return '"[unserialisable]"';
  }
}
