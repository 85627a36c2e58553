import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';
import { ConfigError } from '@x/mcp-core';

/**
 * Which `X-Forwarded-For` entries to believe (`MCP_TRUST_PROXY`): a number of proxy hops in
 * front of the server (0: none, the socket's address is the client), or the addresses and CIDR
 * ranges of the proxies themselves.
 */
export type TrustProxy = { hops: number } | { proxies: BlockList; description: string };

/** Parses `MCP_TRUST_PROXY`: `0` (default), a number of hops, or a comma-separated list of proxy addresses and CIDRs. */
export function parseTrustProxy(value: string | undefined): TrustProxy {
  const text = (value ?? '').trim();
  if (text === '') return { hops: 0 };
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops > 20) throw new ConfigError(`MCP_TRUST_PROXY: ${hops} proxy hops is not plausible.`);
    return { hops };
  }
  const proxies = new BlockList();
  for (const item of text.split(',').map((part) => part.trim())) {
    const [address = '', prefix, extra] = item.split('/');
    const family = isIP(address);
    const bits = prefix === undefined ? undefined : Number(prefix);
    if (
      family === 0 ||
      extra !== undefined ||
      (bits !== undefined && (!/^\d+$/.test(prefix as string) || bits > (family === 4 ? 32 : 128)))
    ) {
      throw new ConfigError(
        `MCP_TRUST_PROXY must be a number of proxy hops or a comma-separated list of proxy addresses and CIDR ranges (e.g. 10.0.0.0/8, ::1); got "${item}".`,
      );
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (bits === undefined) proxies.addAddress(address, type);
    else proxies.addSubnet(address, bits, type);
  }
  return { proxies, description: text };
}

/** An address as the socket or a proxy gives it, comparable: no brackets or port, IPv4-mapped IPv6 as IPv4. */
function normalise(address: string): string {
  let text = address.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  if (bracketed?.[1]) text = bracketed[1];
  else if (/^[\d.]+:\d+$/.test(text)) text = text.slice(0, text.lastIndexOf(':'));
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(text);
  return (mapped?.[1] ?? text).toLowerCase();
}

function trusted(proxies: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && proxies.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The client's address for rate limits: the chain is the `X-Forwarded-For` entries followed by
 * the socket's address; with `hops` proxies the client is the entry `hops` from the right (the
 * one our first proxy saw), with a proxy list the rightmost address that is not a proxy. Entries
 * further left were written by the client and are never used, so a client that reaches the
 * server directly cannot choose its bucket.
 */
export function clientAddress(req: IncomingMessage, trust: TrustProxy): string {
  const socket = normalise(req.socket.remoteAddress ?? 'unknown');
  if ('hops' in trust && trust.hops === 0) return socket;
  const header = req.headers['x-forwarded-for'];
  const forwarded = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map(normalise)
    .filter(Boolean);
  const chain = [...forwarded, socket];
  if ('hops' in trust) return chain[Math.max(0, chain.length - 1 - trust.hops)] as string;
  let index = chain.length - 1;
  while (index > 0 && trusted(trust.proxies, chain[index] as string)) index--;
  return chain[index] as string;
}

/** Requests per window for one endpoint and client address. */
export interface Limit {
  requests: number;
  windowMs: number;
}

/**
 * A limit from the environment: `<requests>/<seconds>` (e.g. `300/60`), `off`, or the default
 * when unset. Returns undefined for `off`.
 */
export function limitFromEnv(name: string, value: string | undefined, fallback: Limit): Limit | undefined {
  const text = (value ?? '').trim();
  if (text === '') return fallback;
  if (text.toLowerCase() === 'off') return undefined;
  const match = /^(\d+)\/(\d+)$/.exec(text);
  const requests = Number(match?.[1]);
  const seconds = Number(match?.[2]);
  if (!match || requests < 1 || seconds < 1 || seconds > 86_400) {
    throw new ConfigError(
      `${name} must be <requests>/<seconds> (e.g. 300/60, at most a day) or off; got "${value}".`,
    );
  }
  return { requests, windowMs: seconds * 1000 };
}

/** The outcome of {@link RateLimiter.admit}: admitted, or refused until `retryAfterSeconds` have passed. */
export type Admission = { ok: true } | { ok: false; retryAfterSeconds: number };

/**
 * A fixed-window limit per key (the window opens at the key's first request), kept in this process's memory (no store write per request, so
 * a flood costs the store nothing; each replica counts its own requests). At most `maxKeys`
 * keys are tracked: when full, the oldest windows are forgotten.
 */
export class RateLimiter {
  readonly #windows = new Map<string, { start: number; count: number }>();

  constructor(
    readonly limit: Limit,
    readonly maxKeys = 50_000,
  ) {}

  admit(key: string, now = Date.now()): Admission {
    const { requests, windowMs } = this.limit;
    let window = this.#windows.get(key);
    if (!window || now >= window.start + windowMs) {
      // A key's window starts at its first request; re-inserted so the map's order is the
      // windows' age and eviction takes the oldest first.
      this.#windows.delete(key);
      this.#evict();
      window = { start: now, count: 0 };
      this.#windows.set(key, window);
    }
    if (window.count >= requests) {
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((window.start + windowMs - now) / 1000)) };
    }
    window.count++;
    return { ok: true };
  }

  /** Keys tracked now (for tests and metrics). */
  get size(): number {
    return this.#windows.size;
  }

  /** Drops the oldest windows (expired ones are the oldest) until there is room for one more key. */
  #evict(): void {
    for (const key of this.#windows.keys()) {
      if (this.#windows.size < this.maxKeys) return;
      this.#windows.delete(key);
    }
  }
}
