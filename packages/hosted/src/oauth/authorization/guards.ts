import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KvStore } from '../../store/kv.js';
import type { AuthorizationServerOptions } from '../authorization-server.js';
import { sha256 } from '../browser.js';
import { clientAddress, type Limit, RateLimiter } from '../limits.js';
import { sendError } from '../pages.js';
import type { AuthServerSettings } from './context.js';

export type RateLimitedEndpoint = 'authorize' | 'token' | 'interaction';

/**
 * Generous enough for a whole team behind one egress address (or every Claude and ChatGPT user,
 * whose token requests come from the vendor's addresses); tight enough that one address cannot
 * flood a replica.
 */
export const DEFAULT_RATE_LIMITS: Readonly<Record<RateLimitedEndpoint, Limit>> = {
  authorize: { requests: 300, windowMs: 60_000 },
  token: { requests: 600, windowMs: 60_000 },
  interaction: { requests: 600, windowMs: 60_000 },
};

/** Default dynamic registrations per client address (shared by the replicas through the store). */
export const DEFAULT_REGISTRATION_LIMIT: Limit = { requests: 120, windowMs: 10 * 60_000 };

type GuardOptions = Pick<AuthorizationServerOptions, 'registrationLimit' | 'rateLimits' | 'trustProxy'>;

/**
 * What every request to the authorization server passes first, answered here when it fails: an
 * HTTPS server behind a proxy that does not say HTTPS (502 on the browser flow, which could not
 * set its Secure cookies), the per-address limits on `/authorize`, `/token` and the sign-in pages
 * (429), and the registrations per address shared by the replicas (429). The returned check says
 * whether it answered.
 */
export function createRequestGuards(
  settings: AuthServerSettings,
  options: GuardOptions,
): (req: IncomingMessage, res: ServerResponse, path: string) => Promise<boolean> {
  const { issuer, secure, signInCallback, store, logger } = settings;
  const registrationLimit = options.registrationLimit ?? DEFAULT_REGISTRATION_LIMIT;
  const registrations = registrationLimit
    ? new StoreWindow(store, registrationLimit.requests, registrationLimit.windowMs)
    : undefined;
  const trustProxy = options.trustProxy ?? { hops: 0 };
  const limiters = new Map<RateLimitedEndpoint, RateLimiter>();
  for (const endpoint of ['authorize', 'token', 'interaction'] as const) {
    const limit = options.rateLimits?.[endpoint] ?? DEFAULT_RATE_LIMITS[endpoint];
    if (limit) limiters.set(endpoint, new RateLimiter(limit));
  }
  // Said once per process: the two proxy mistakes an operator can fix from one log line.
  const warned = new Set<string>();
  const warnOnce = (key: string, level: 'warn' | 'error', message: string) => {
    if (warned.has(key)) return;
    warned.add(key);
    logger[level](message);
  };

  /** The proxy says nothing of HTTPS on the browser flow: nothing there can work. */
  const proxyRefused = (req: IncomingMessage, res: ServerResponse, path: string): boolean => {
    const browserFlow =
      path === '/authorize' || path.startsWith('/authorize/') || path.startsWith('/interaction/');
    if (browserFlow && insecureBehindProxy(req, secure)) {
      warnOnce(
        'proto',
        'error',
        `${issuer} is an https URL but a request reached ${path} without X-Forwarded-Proto: https: the proxy must send X-Forwarded-Proto: https; set MCP_TRUST_PROXY to the number of proxies in front`,
      );
      sendError(
        res,
        502,
        'This server is behind a proxy that does not say the connection is HTTPS (X-Forwarded-Proto), so sign-in cannot work. Tell the server’s operator.',
      );
      return true;
    }
    return false;
  };

  /** Past a per-address limit, or past the registrations per address. */
  const overLimit = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> => {
    const endpoint = limitedEndpoint(path, signInCallback);
    const limiter = endpoint ? limiters.get(endpoint) : undefined;
    const isRegistration = path === '/register' && req.method === 'POST';
    if (endpoint || isRegistration) {
      if ('hops' in trustProxy && trustProxy.hops === 0 && req.headers['x-forwarded-for'] !== undefined) {
        warnOnce(
          'xff',
          'warn',
          'requests carry X-Forwarded-For but MCP_TRUST_PROXY is 0: rate limits count every client behind the proxy as one address; set MCP_TRUST_PROXY to the number of proxies in front',
        );
      }
      const address = clientAddress(req, trustProxy);
      const admission = limiter?.admit(`${endpoint}:${address}`);
      if (endpoint && admission && !admission.ok) {
        tooMany(res, endpoint, admission.retryAfterSeconds);
        return true;
      }
      if (isRegistration && registrations && !(await registrations.admit(address))) {
        res.writeHead(429, {
          'content-type': 'application/json',
          'retry-after': String(Math.ceil(registrations.windowMs / 1000)),
        });
        res.end(
          '{"error":"temporarily_unavailable","error_description":"too many registrations; retry later"}',
        );
        return true;
      }
    }
    return false;
  };

  return async (req, res, path) => proxyRefused(req, res, path) || (await overLimit(req, res, path));
}

/** The endpoint a limit applies to, if any. */
function limitedEndpoint(path: string, signInCallback: string): RateLimitedEndpoint | undefined {
  if (path === '/authorize' || path.startsWith('/authorize/')) return 'authorize';
  if (path === '/token') return 'token';
  if (path.startsWith('/interaction/') || path === signInCallback) return 'interaction';
  return undefined;
}

function tooMany(res: ServerResponse, endpoint: RateLimitedEndpoint, retryAfterSeconds: number): void {
  if (endpoint === 'interaction') {
    res.setHeader('retry-after', String(retryAfterSeconds));
    sendError(res, 429, 'Too many sign-in requests from your address; wait a minute and start again.');
    return;
  }
  res.writeHead(429, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    'retry-after': String(retryAfterSeconds),
  });
  res.end(
    JSON.stringify({
      error: 'temporarily_unavailable',
      error_description: `too many requests from this address; retry in ${retryAfterSeconds} s`,
    }),
  );
}

/**
 * With an HTTPS public URL the proxy must say the request came over HTTPS; otherwise
 * oidc-provider refuses to set its Secure cookies and every sign-in fails with a bare 500.
 */
function insecureBehindProxy(req: IncomingMessage, secure: boolean): boolean {
  if (!secure || (req.socket as { encrypted?: boolean }).encrypted) return false;
  const header = req.headers['x-forwarded-proto'];
  const proto = (Array.isArray(header) ? header[0] : header)?.split(',')[0]?.trim().toLowerCase();
  return proto !== 'https';
}

/**
 * At most `limit` events per key and window, counted in the store so every replica shares one
 * count (a fixed window: at a window's edge a burst of up to twice the limit can pass).
 */
class StoreWindow {
  constructor(
    readonly store: KvStore,
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  async admit(key: string, now = Date.now()): Promise<boolean> {
    const window = Math.floor(now / this.windowMs);
    const record = `ratelimit:register:${sha256(key)}:${window}`;
    for (let attempt = 0; attempt < 20; attempt++) {
      const entry = await this.store.get(record);
      const count = entry ? Number.parseInt(entry.value, 10) || 0 : 0;
      if (count >= this.limit) return false;
      const written = await this.store.set(record, String(count + 1), {
        ifVersion: entry?.version ?? 0,
        ttlMs: this.windowMs,
      });
      if (written !== undefined) return true;
    }
    // Heavy contention on one address: that is a flood.
    return false;
  }
}
