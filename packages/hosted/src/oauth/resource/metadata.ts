import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  buildOAuthProtectedResourceMetadata,
  getOAuthProtectedResourceMetadataUrl,
} from '@modelcontextprotocol/server';
import { isLoopbackHost, requestTarget } from '@x/mcp-core/node';
import { narrowedPath } from '../narrowed-resource.js';
import { READ_WRITE_SCOPES } from '../scopes.js';

/** What a bearer challenge names: the scopes to ask for and where the resource's metadata is. */
export interface Challenge {
  requiredScopes: string[];
  resourceMetadataUrl: string;
}

/** The resource's RFC 9728 metadata documents, and the challenge that points at them. */
export interface ResourceMetadata {
  /** The `/mcp` document's URL. */
  metadataUrl: string;
  /** The challenge for the `/mcp` URL itself. */
  challenge: Challenge;
  /** The challenge for a request to `path` (a narrowed URL points at its own document). */
  challengeFor(path: string | undefined): Challenge;
  /**
   * Serves `/.well-known/oauth-protected-resource[/mcp]` and the narrowed URLs' documents
   * (`…/mcp/x/…`, `…/mcp/readonly`); `false` for other paths.
   */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
}

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

/**
 * The protected resource metadata (RFC 9728) of `resource`, naming `issuer` as its
 * authorization server. A narrowed connector URL (`/mcp/x/<provider>.<toolset>`,
 * `/mcp/readonly`) is a resource of its own to a client: its metadata names it (clients refuse a
 * `resource` other than the URL they connect to, RFC 9728 §3.3), and its 401 points there. Its
 * tokens are the server's: the authorization server binds them to `<issuer>/mcp`, so one token
 * serves every narrowing.
 */
export function createResourceMetadata(issuer: string, resource: string): ResourceMetadata {
  const resourceUrl = new URL(resource);
  const metadataUrl = getOAuthProtectedResourceMetadataUrl(resourceUrl);
  const metadata = buildOAuthProtectedResourceMetadata({
    oauthMetadata: {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      response_types_supported: ['code'],
    },
    resourceServerUrl: resourceUrl,
    scopesSupported: [...READ_WRITE_SCOPES],
    dangerouslyAllowInsecureIssuerUrl: isLoopbackHost(new URL(issuer).hostname),
  });
  const document = JSON.stringify({ ...metadata, bearer_methods_supported: ['header'] });
  // What a client without a token should ask for: read and write (the person may grant read
  // only). `mcp` is still accepted: tokens issued before `mcp:read` and `mcp:write` carry it.
  const challenge: Challenge = { requiredScopes: [...READ_WRITE_SCOPES], resourceMetadataUrl: metadataUrl };
  const challengeFor = (path: string | undefined): Challenge => {
    const narrowed = narrowedPath(resourceUrl.pathname, path);
    return narrowed
      ? { ...challenge, resourceMetadataUrl: `${resourceUrl.origin}${WELL_KNOWN}${narrowed}` }
      : challenge;
  };

  const handle = (req: IncomingMessage, res: ServerResponse): boolean => {
    const path = requestTarget(req.url)?.pathname;
    let body = document;
    if (path !== WELL_KNOWN && path !== new URL(metadataUrl).pathname) {
      const narrowed = path?.startsWith(`${WELL_KNOWN}/`)
        ? narrowedPath(resourceUrl.pathname, path.slice(WELL_KNOWN.length))
        : undefined;
      if (!narrowed) return false;
      body = JSON.stringify({
        ...metadata,
        resource: `${resourceUrl.origin}${narrowed}`,
        bearer_methods_supported: ['header'],
      });
    }
    const cors = { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, OPTIONS' };
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { ...cors, 'access-control-allow-headers': '*' });
      res.end();
    } else if (req.method === 'GET' || req.method === 'HEAD') {
      res.writeHead(200, { ...cors, 'content-type': 'application/json', 'cache-control': 'max-age=300' });
      res.end(req.method === 'HEAD' ? undefined : body);
    } else {
      res.writeHead(405, { ...cors, allow: 'GET, OPTIONS' });
      res.end();
    }
    return true;
  };

  return { metadataUrl, challenge, challengeFor, handle };
}
