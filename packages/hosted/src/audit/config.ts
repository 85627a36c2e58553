import { dirname, join, resolve } from 'node:path';
import { ConfigError, createLogger, type Logger, observe } from '@x/mcp-core';
import type { Keyring } from '../crypto.js';
import type { Connections } from '../oauth/connections.js';
import { oidcKeys } from '../oidc-adapter.js';
import type { KvStore } from '../store/kv.js';
import { SealedRecords } from '../store/sealed.js';
import { type AuditEntry, AuditLog } from './audit-log.js';
import {
  type AuditSink,
  DEFAULT_KEEP_FILES,
  DEFAULT_ROTATE_BYTES,
  DEFAULT_STREAM_LENGTH,
  FileSink,
  RedisSink,
  StdoutSink,
} from './sinks.js';

/** The key of the arguments' keyed hashes, derived from `MCP_SECRET` (it follows `keys rotate`). */
export function auditArgumentKey(keyring: Keyring): Uint8Array {
  return keyring.deriveKey('audit arguments');
}

/** Where the audit log goes (`MCP_AUDIT`). */
export type AuditTarget =
  | { kind: 'off' }
  | { kind: 'file'; path: string }
  | { kind: 'redis'; url: string }
  | { kind: 'stdout' };

/**
 * `MCP_AUDIT`: `off`, `file:<path>`, `redis` (the store's Redis) or `stdout`. Unset or empty:
 * a file next to a `sqlite:` store (`audit.jsonl` in its directory), the stream on a `redis://`
 * store, off for `memory:`. A `ConfigError` for anything else.
 */
export function auditTarget(value: string | undefined, storeLocation: string): AuditTarget {
  const text = value?.trim() ?? '';
  const store = storeLocation.trim();
  const redisStore = /^rediss?:/i.test(store);
  if (text === '') {
    if (store.startsWith('sqlite:')) {
      const path = store.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
      return { kind: 'file', path: join(dirname(resolve(path)), 'audit.jsonl') };
    }
    return redisStore ? { kind: 'redis', url: store } : { kind: 'off' };
  }
  if (text === 'off') return { kind: 'off' };
  if (text === 'stdout') return { kind: 'stdout' };
  if (text === 'redis') {
    if (!redisStore) {
      throw new ConfigError(
        'MCP_AUDIT=redis writes to the store’s Redis: it needs a redis:// store (MCP_STORE).',
      );
    }
    return { kind: 'redis', url: store };
  }
  if (text.startsWith('file:') && text.length > 'file:'.length && !text.includes('\0')) {
    return { kind: 'file', path: resolve(text.slice('file:'.length)) };
  }
  throw new ConfigError(`MCP_AUDIT must be off, file:<path>, redis or stdout; got ${text}.`);
}

function positive(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < 1) {
    throw new ConfigError(`${name} must be a positive whole number; got ${value}.`);
  }
  return number;
}

/** The sink a target names, with `MCP_AUDIT_MAX_BYTES`, `MCP_AUDIT_KEEP`, `MCP_AUDIT_MAXLEN`. */
export async function openAuditSink(
  target: Exclude<AuditTarget, { kind: 'off' }>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<AuditSink> {
  switch (target.kind) {
    case 'file':
      return new FileSink(target.path, {
        maxBytes: positive('MCP_AUDIT_MAX_BYTES', env.MCP_AUDIT_MAX_BYTES, DEFAULT_ROTATE_BYTES),
        keep: positive('MCP_AUDIT_KEEP', env.MCP_AUDIT_KEEP, DEFAULT_KEEP_FILES),
      });
    case 'redis':
      return RedisSink.connect(target.url, {
        maxLength: positive('MCP_AUDIT_MAXLEN', env.MCP_AUDIT_MAXLEN, DEFAULT_STREAM_LENGTH),
      });
    case 'stdout':
      return new StdoutSink();
  }
}

/**
 * Writes one record from an admin command (`users revoke`, `users forget`) into the server's
 * audit log: a file or the Redis stream, shared with running servers (see `FileSink` and
 * `RedisSink`). Nothing for `off` and `stdout` (the command's stdout is not the server's).
 * Throws when the record could not be written.
 */
export async function recordAdminAction(
  target: AuditTarget,
  keyring: Keyring,
  entry: AuditEntry,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  if (target.kind === 'off' || target.kind === 'stdout') return undefined;
  const audit = new AuditLog({
    sink: await openAuditSink(target, env),
    argumentKey: auditArgumentKey(keyring),
    logger: createLogger('audit'),
  });
  try {
    audit.record(entry);
    if (!(await audit.flush())) throw new Error(`the audit log (${audit.sink.name}) refused the record`);
    return audit.sink.name;
  } finally {
    await audit.close();
  }
}

/** What oidc-provider hands its event listeners (only the fields read here). */
interface OidcContext {
  oidc?: {
    route?: string;
    client?: { clientId?: string };
    session?: { accountId?: string };
    account?: { accountId?: string };
    params?: { scope?: unknown };
    entities?: Record<string, { accountId?: unknown } | undefined>;
  };
}

interface EventSource {
  on(event: string, listener: (...args: never[]) => void): unknown;
  off?(event: string, listener: (...args: never[]) => void): unknown;
}

export interface StartAuditOptions {
  target: Exclude<AuditTarget, { kind: 'off' }>;
  keyring: Keyring;
  /** The store (the clients' names are read from it, once per client and 10 minutes). */
  store: KvStore;
  /** The users' emails, from their connections. */
  connections: Pick<Connections, 'get'>;
  /** The authorization server's oidc-provider: its sign-ins and revocations are recorded. */
  provider?: unknown;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
}

/**
 * Starts the audit log of the hosted server: the sink, the observer of every call (so every
 * replica's calls, refused ones included, are recorded), the authorization server's sign-ins
 * and revocations. `close()` writes what is left and stops it.
 */
export async function startAudit(options: StartAuditOptions): Promise<AuditLog> {
  const sink = await openAuditSink(options.target, options.env);
  const records = new SealedRecords(options.store, options.keyring);
  const audit = new AuditLog({
    sink,
    argumentKey: auditArgumentKey(options.keyring),
    logger: options.logger ?? createLogger('audit'),
    directory: {
      userEmail: async (userId) => (await options.connections.get(userId))?.identity.email,
      clientName: async (clientId) => {
        const entry = await records.get<{ client_name?: unknown }>(oidcKeys.record('Client', clientId));
        const name = entry?.value.client_name;
        return typeof name === 'string' ? name : undefined;
      },
    },
  });
  const unobserve = observe(audit.observer);
  const provider = options.provider as EventSource | undefined;
  const listeners: Array<[string, (...args: never[]) => void]> = [
    [
      'authorization.success',
      (ctx: OidcContext) => {
        const scope = ctx.oidc?.params?.scope;
        audit.record({
          event: 'sign-in',
          outcome: 'ok',
          userId: ctx.oidc?.session?.accountId ?? ctx.oidc?.account?.accountId,
          clientId: ctx.oidc?.client?.clientId,
          ...(typeof scope === 'string' ? { scope } : {}),
        });
      },
    ],
    [
      'authorization.error',
      (ctx: OidcContext, error: { error?: unknown }) => {
        // Only refusals of a known client (a user who declined, or was not admitted).
        if (!ctx.oidc?.client?.clientId || typeof error?.error !== 'string') return;
        audit.record({
          event: 'sign-in',
          outcome: error.error,
          denied: error.error === 'access_denied',
          userId: ctx.oidc.session?.accountId,
          clientId: ctx.oidc.client.clientId,
        });
      },
    ],
    [
      'grant.revoked',
      (ctx: OidcContext) => {
        const entities = ctx.oidc?.entities ?? {};
        const token = entities.RefreshToken ?? entities.AccessToken ?? entities.AuthorizationCode;
        const userId = typeof token?.accountId === 'string' ? token.accountId : undefined;
        if (userId) audit.forgetUser(userId);
        audit.record({
          event: 'revoke',
          outcome: 'ok',
          userId,
          clientId: ctx.oidc?.client?.clientId,
          reason:
            ctx.oidc?.route === 'revocation'
              ? 'revoked by the client'
              : 'refresh token reused or code replayed',
        });
      },
    ],
  ];
  if (provider) for (const [event, listener] of listeners) provider.on(event, listener);
  audit.onClose(() => {
    unobserve();
    if (provider?.off) for (const [event, listener] of listeners) provider.off(event, listener);
  });
  return audit;
}
