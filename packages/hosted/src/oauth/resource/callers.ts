import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { McpToolError, type ToolAccess, type ToolRegistry } from '@x/mcp-core';
import type { HttpAuth } from '@x/mcp-core/node';
import { oidcKeys } from '../../oidc-adapter.js';
import { CachedStore } from '../../store/cached.js';
import type { KvStore } from '../../store/kv.js';
import { type Connections, connectionKey, type SignInCredentials } from '../connections.js';
import type { ResourceServer } from '../resource-server.js';
import { mcpAccess, READ_SCOPE, READ_WRITE_SCOPES } from '../scopes.js';

/** The signed-in caller of an `/mcp` request: whether they may call now, and their credentials. */
export interface McpCallers {
  /** The resource server's `isActive`: the token's grant and the user's connection both live. */
  isActive(info: AuthInfo): Promise<boolean>;
  /** The user's sign-in credentials: those `isActive` checked for this request, or the current ones. */
  credentialsOf(info: AuthInfo): Promise<SignInCredentials>;
}

/**
 * Every request: the grant and the user's connection, in one round trip or from this replica's
 * copies, which every change drops (a revoked grant, a forgotten user or a dead upstream sign-in
 * answer 401 on the next request). The credentials checked (and refreshed) while authenticating a
 * request serve the same request's registry: one refresh attempt per request at most.
 */
export function createMcpCallers(store: KvStore, connections: Connections): McpCallers {
  const checked = new WeakMap<AuthInfo, SignInCredentials>();
  return {
    isActive: async (info) => {
      const grantId = String(info.extra?.grantId);
      const userId = String(info.extra?.userId);
      const keys = [oidcKeys.record('Grant', grantId), connectionKey(userId)];
      // From this replica's copies without a promise when it holds both; else one round trip.
      const [grant, connection] = CachedStore.peek(store, keys) ?? (await store.getMany(keys));
      if (grant === undefined) return false;
      try {
        checked.set(info, await connections.forRequest(userId, connection));
        return true;
      } catch (error) {
        if (McpToolError.isInstance(error) && error.code === 'TOKEN_EXPIRED') return false;
        throw error;
      }
    },
    credentialsOf: async (info) =>
      checked.get(info) ?? (await connections.current(String(info.extra?.userId))),
  };
}

/** Something that serves some paths of the origin and says `false` for the others. */
interface PathHandler {
  handle(req: IncomingMessage, res: ServerResponse): boolean | Promise<boolean>;
}

export interface HostedHttpAuthParts {
  resourceServer: ResourceServer;
  /** The origin's other pages, asked in order after the resource server's metadata. */
  pages: readonly PathHandler[];
  callers: McpCallers;
  /** The tools one signed-in user sees (default: the server's registry). */
  registryFor?(userId: string, credentials: SignInCredentials, auth: AuthInfo): Promise<ToolRegistry>;
}

/**
 * The hosted server's `HttpAuth`: the metadata documents, then the other pages in order; an
 * `/mcp` request's caller from the resource server; a token without `mcp:write` (or `mcp`) is
 * served the read tools only, and calling another answers 403 insufficient_scope with every
 * scope a write needs, so the client can step up; the caller's own registry when one is given.
 */
export function hostedHttpAuth(parts: HostedHttpAuthParts): HttpAuth {
  const { resourceServer, pages, callers, registryFor } = parts;
  const readOnlyAccess = (request: Request): ToolAccess => ({
    source: `your token's scopes (${READ_SCOPE})`,
    readOnly: true,
    challenge: ({ tool }) =>
      resourceServer.insufficientScope(
        request,
        READ_WRITE_SCOPES,
        `${tool} changes data, which needs ${READ_WRITE_SCOPES.join(' ')}; authorize again with them.`,
      ),
  });
  return {
    async handle(req, res) {
      if (resourceServer.handle(req, res)) return true;
      for (const page of pages) if (await page.handle(req, res)) return true;
      return false;
    },
    authenticate: (request) => resourceServer.authenticate(request),
    accessFor: (info, request) => (mcpAccess(info.scopes) === 'write' ? [] : [readOnlyAccess(request)]),
    ...(registryFor
      ? {
          registryFor: async (info: AuthInfo) =>
            registryFor(String(info.extra?.userId), await callers.credentialsOf(info), info),
        }
      : {}),
  };
}
