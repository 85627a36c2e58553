import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors as oidcErrors } from 'oidc-provider';
import type { Keyring } from '../crypto.js';
import type { OidcAdapter, OidcPayload } from '../oidc-adapter.js';

/** The HTTP exchange being served, for the adapter calls made while serving it. */
interface RequestScope {
  req: IncomingMessage;
  res: ServerResponse;
}

/** Set around every request the authorization server handles (`requestScope.run`). */
export const requestScope = new AsyncLocalStorage<RequestScope>();

/** Browsers keep cookies up to 4,096 bytes with their name and attributes. */
const COOKIE_MAX_BYTES = 3_800;
const CONTEXT = 'interaction-cookie';

interface SealedInteraction {
  uid: string;
  /** Unix time in seconds. */
  exp: number;
  payload: OidcPayload;
}

/**
 * oidc-provider's `Interaction` records kept in the browser until a person acts: an
 * unauthenticated `GET /authorize` would otherwise store a 10-minute record per request, which
 * lets anyone grow the store. An Interaction without a result (the one `/authorize` starts) is
 * sealed with the keyring (AES-GCM, bound to its uid and expiry) into a cookie scoped to
 * `/interaction/<uid>`, where our interaction pages read it; once the person has finished
 * (`interactionFinished` saves it with a result), it is written to the store as before, where
 * the `/authorize/<uid>` resume reads and deletes it. Other models pass through unchanged.
 */
export function withInteractionCookies(
  adapter: (model: string) => OidcAdapter,
  options: { keyring: Keyring; secure: boolean },
): (model: string) => OidcAdapter {
  const name = options.secure ? '__Secure-xmcp-interaction' : 'xmcp-interaction';
  const attributes = (uid: string, maxAge: number) =>
    [`Path=/interaction/${uid}`, 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAge}`]
      .concat(options.secure ? ['Secure'] : [])
      .join('; ');

  const fromCookie = (uid: string): OidcPayload | undefined => {
    const header = requestScope.getStore()?.req.headers.cookie ?? '';
    for (const part of header.split(';')) {
      const [key, ...rest] = part.trim().split('=');
      if (key !== name) continue;
      try {
        const sealed = JSON.parse(
          options.keyring.decrypt(rest.join('='), CONTEXT).plaintext,
        ) as SealedInteraction;
        if (sealed.uid === uid && sealed.exp > Date.now() / 1000) return sealed.payload;
      } catch {
        // Another interaction's cookie, a foreign or tampered one, or one sealed before a rotation.
      }
    }
    return undefined;
  };

  return (model) => {
    const inner = adapter(model);
    if (model !== 'Interaction') return inner;
    return {
      async upsert(id, payload, expiresIn) {
        const scope = requestScope.getStore();
        if (payload.result !== undefined || !scope || scope.res.headersSent || expiresIn === undefined) {
          await inner.upsert(id, payload, expiresIn);
          return;
        }
        const sealed = options.keyring.encrypt(
          JSON.stringify({
            uid: id,
            exp: Math.floor(Date.now() / 1000) + expiresIn,
            payload,
          } satisfies SealedInteraction),
          CONTEXT,
        );
        const cookie = `${name}=${sealed}; ${attributes(id, expiresIn)}`;
        if (cookie.length > COOKIE_MAX_BYTES) {
          throw new (oidcErrors.InvalidRequest as new (description: string) => Error)(
            'the authorization request is too large',
          );
        }
        appendCookie(scope.res, cookie);
      },
      async find(id) {
        return (await inner.find(id)) ?? fromCookie(id);
      },
      async destroy(id) {
        await inner.destroy(id);
        const scope = requestScope.getStore();
        if (scope && !scope.res.headersSent) appendCookie(scope.res, `${name}=; ${attributes(id, 0)}`);
      },
      findByUid: (uid) => inner.findByUid(uid),
      findByUserCode: (code) => inner.findByUserCode(code),
      consume: (id) => inner.consume(id),
      revokeByGrantId: (grantId) => inner.revokeByGrantId(grantId),
    };
  };
}

/** Adds a Set-Cookie line, keeping those already set (Koa's cookies append the same way). */
function appendCookie(res: ServerResponse, cookie: string): void {
  const existing = res.getHeader('set-cookie');
  const lines = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  res.setHeader('set-cookie', [...lines, cookie]);
}
