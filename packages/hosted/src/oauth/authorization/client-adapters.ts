import { createHash } from 'node:crypto';
import type { OidcAdapter } from '../../oidc-adapter.js';
import type { KvStore } from '../../store/kv.js';
import { mcpAccess, READ_WRITE_SCOPES } from '../scopes.js';

/**
 * Registered clients expire after `ttlSeconds` without use: written with that TTL, and each
 * lookup renews it at most once a day (a marker key remembers the last renewal).
 */
export function withClientTtl(
  adapter: (model: string) => OidcAdapter,
  store: KvStore,
  ttlSeconds: number,
): (model: string) => OidcAdapter {
  return (model) => {
    const inner = adapter(model);
    if (model !== 'Client') return inner;
    const renewed = (id: string) => `client-used:${createHash('sha256').update(id).digest('base64url')}`;
    return {
      ...inner,
      upsert: (id, payload, expiresIn) => inner.upsert(id, payload, expiresIn ?? ttlSeconds),
      find: async (id) => {
        const payload = await inner.find(id);
        if (payload && (await store.get(renewed(id))) === undefined) {
          await inner.upsert(id, payload, ttlSeconds);
          await store.set(renewed(id), '1', { ttlMs: Math.min(ttlSeconds * 1000, 24 * 3600_000) });
        }
        return payload;
      },
      findByUid: (uid) => inner.findByUid(uid),
      findByUserCode: (code) => inner.findByUserCode(code),
      consume: (id) => inner.consume(id),
      destroy: (id) => inner.destroy(id),
      revokeByGrantId: (grantId) => inner.revokeByGrantId(grantId),
    };
  };
}

/**
 * Scope hierarchy for registered clients: a client registered for `mcp` (every client that
 * registered before `mcp:read` and `mcp:write` existed, with the scope the server then
 * advertised) or for `mcp:write` may ask for `mcp:read` and `mcp:write`, which `mcp` and
 * `mcp:write` imply. oidc-provider refuses a registered client any scope not in its list.
 */
export function withImpliedClientScopes(
  adapter: (model: string) => OidcAdapter,
): (model: string) => OidcAdapter {
  return (model) => {
    const inner = adapter(model);
    if (model !== 'Client') return inner;
    return {
      ...inner,
      find: async (id) => {
        const payload = await inner.find(id);
        if (typeof payload?.scope !== 'string') return payload;
        const registered = payload.scope.split(' ');
        if (mcpAccess(registered) !== 'write') return payload;
        return { ...payload, scope: [...new Set([...registered, ...READ_WRITE_SCOPES])].join(' ') };
      },
    };
  };
}
