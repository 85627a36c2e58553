import { parseNarrowedPath } from '@x/mcp-core/node';

/**
 * Whether `indicator` (an RFC 8707 `resource` parameter) names a narrowed connector URL of
 * `resource` (`<issuer>/mcp/x/<provider>.<toolset>`, `<issuer>/mcp/readonly`): the authorization server
 * accepts those too, and binds their tokens to `resource` itself, so one token serves the
 * endpoint and every narrowing of it.
 */
export function isNarrowedResource(resource: string, indicator: string): boolean {
  const base = new URL(resource);
  let url: URL;
  try {
    url = new URL(indicator);
  } catch {
    return false;
  }
  if (url.origin !== base.origin || url.search !== '' || url.hash !== '') return false;
  return narrowedPath(base.pathname, url.pathname) !== undefined;
}

/** `path` when it is a narrowed path of the endpoint (not the endpoint itself), else `undefined`. */
export function narrowedPath(endpoint: string, path: string | undefined): string | undefined {
  if (path === undefined || path === endpoint) return undefined;
  try {
    return parseNarrowedPath(endpoint, path) ? path : undefined;
  } catch {
    return undefined;
  }
}
