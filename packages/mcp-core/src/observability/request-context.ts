import { AsyncLocalStorage } from 'node:async_hooks';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';

/** What log lines written while serving one HTTP request carry. */
export interface RequestLogContext {
  request_id: string;
  /** A keyed hash of the caller's user id; never the id itself. */
  user?: string;
}

// One per process, shared across duplicate installs of the core (a bin bundles its own copy,
// @x/mcp-hosted imports another), like the telemetry hub: else an observer from one copy never
// sees the request context the other copy's `serveHttp` entered.
const CONTEXT_KEY = Symbol.for('@x/mcp-core.request-context');
const slot = globalThis as Record<symbol, AsyncLocalStorage<RequestLogContext> | undefined>;
slot[CONTEXT_KEY] ??= new AsyncLocalStorage<RequestLogContext>();
export const requestContext: AsyncLocalStorage<RequestLogContext> = slot[CONTEXT_KEY];

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's `X-Request-Id` when it is a plain token (a proxy's id), else a fresh one. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && REQUEST_ID.test(value) ? value : randomUUID();
}

/**
 * A pseudonym for a user id in logs: HMAC-SHA256 with `key`, 16 base64url characters. Keyed, so
 * nobody can hash guessed ids (Basecamp ids are small numbers) and match them. The same key on
 * every replica gives the same pseudonym everywhere.
 */
export function hashUserId(userId: string, key: string | Uint8Array): string {
  return createHmac('sha256', key).update(userId).digest('base64url').slice(0, 16);
}

/**
 * `MCP_LOG_USER_KEY`, or a random key for this process: pseudonyms then stay stable only until
 * a restart, which is safe but does not correlate across replicas.
 */
export function userHashKey(env: Record<string, string | undefined> = process.env): string | Uint8Array {
  return env.MCP_LOG_USER_KEY || randomBytes(32);
}

/**
 * The HTTP request being served, when `serveHttp` set up its context: its id (`X-Request-Id`),
 * and an object of its own, so an observer can keep per-request state in a `WeakMap` keyed by it
 * instead of an `AsyncLocalStorage` of its own (each enabled one costs every promise on Node 22).
 */
export function currentRequest(): Readonly<{ request_id: string }> | undefined {
  return requestContext.getStore();
}
