// Which redirect URIs a client may register (DCR or a CIMD document), and its application type:
// the host policy for HTTPS, loopback for desktop clients (RFC 8252 §7.3), private-use schemes
// only where the operator lists them (docs/decisions/0026-native-clients-redirect-uris.md).
import { ConfigError, type Logger } from '@x/mcp-core';
import { isLoopbackHost } from '@x/mcp-core/node';

/** Schemes never accepted as a private-use scheme, whatever the setting lists. */
const NOT_PRIVATE_USE = new Set([
  'http',
  'https',
  'javascript',
  'vbscript',
  'data',
  'blob',
  'file',
  'about',
  'ftp',
  'ws',
  'wss',
]);

/** `MCP_OAUTH_REDIRECT_SCHEMES`: private-use schemes native clients may register (lower case, no `:`). */
export function parseRedirectSchemes(names: readonly string[]): string[] {
  return names.map((raw) => {
    const name = raw.trim().toLowerCase().replace(/:$/, '');
    // RFC 3986 §3.1 scheme syntax.
    if (!/^[a-z][a-z0-9+.-]*$/.test(name) || NOT_PRIVATE_USE.has(name)) {
      throw new ConfigError(
        `MCP_OAUTH_REDIRECT_SCHEMES: ${raw} is not a private-use URI scheme (e.g. com.example.app or cursor; never http, https, javascript, data, file).`,
      );
    }
    return name;
  });
}

/** What a client's redirect URIs may be. */
export interface RedirectPolicy {
  /** Hosts (exact, lower case) an HTTPS redirect URI may point at. */
  hosts: readonly string[];
  /** Private-use schemes (lower case) a native client may use. Default none. */
  schemes?: readonly string[];
}

/**
 * A URI whose WHATWG serialisation is itself: exact matching compares strings, but browsers and
 * other parsers read the URL as WHATWG does, so refuse a URI that reads differently
 * (`https://claude.ai\@evil.example/`, a tab, an uppercase host, a default port), except the `/`
 * WHATWG adds to an empty path. No fragment, no user info.
 */
function parseExact(uri: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  if (url.hash || url.username || url.password) return undefined;
  if (url.href !== uri && !(url.pathname === '/' && !url.search && url.href === `${uri}/`)) return undefined;
  return url;
}

/** `http://` to a loopback address (any port): the redirect of a desktop client (RFC 8252 §7.3). */
export function isLoopbackRedirect(uri: string): boolean {
  const url = parseExact(uri);
  return url !== undefined && url.protocol === 'http:' && isLoopbackHost(url.hostname);
}

/** Whether a redirect URI passes the host policy: HTTPS to a listed host, or HTTP(S) to loopback. */
export function redirectUriAllowed(uri: string, hosts: readonly string[]): boolean {
  const url = parseExact(uri);
  if (!url) return false;
  if (isLoopbackHost(url.hostname)) return url.protocol === 'http:' || url.protocol === 'https:';
  return url.protocol === 'https:' && hosts.includes(url.hostname.toLowerCase());
}

/** A private-use scheme redirect (`com.example.app:/cb`, `cursor://…`) whose scheme is listed. */
function privateUseAllowed(uri: string, schemes: readonly string[]): boolean {
  const url = parseExact(uri);
  return url !== undefined && schemes.includes(url.protocol.slice(0, -1));
}

/** Why a client's metadata is refused (the sentence its registration answers), or undefined. */
export interface RedirectRefusal {
  uri: string;
  description: string;
}

/**
 * Checks a client's `redirect_uris` against the policy, and makes a client whose every
 * redirect URI is loopback or a listed private-use scheme `native` (RFC 8252 §7.3: any loopback
 * port then matches, as the MCP clients with an ephemeral callback port need; oidc-provider
 * relaxes the port for native clients only, and admits other schemes for native clients only).
 * `metadata` is oidc-provider's client metadata, changed in place. Returns the first refusal.
 */
export function checkClientRedirects(
  metadata: { redirect_uris?: unknown; application_type?: unknown },
  policy: RedirectPolicy,
): RedirectRefusal | undefined {
  const uris = metadata.redirect_uris;
  if (!Array.isArray(uris)) return undefined;
  const schemes = policy.schemes ?? [];
  // Only an app on the person's device can receive these: such a client is native, whatever
  // application_type says (OIDC reads an omitted one as `web`, which no loopback client means).
  const deviceOnly =
    uris.length > 0 &&
    uris.every(
      (uri) => typeof uri === 'string' && (isLoopbackRedirect(uri) || privateUseAllowed(uri, schemes)),
    );
  const native = metadata.application_type === 'native' || deviceOnly;
  for (const uri of uris) {
    if (typeof uri !== 'string') return { uri: String(uri), description: 'a redirect URI must be a string' };
    if (redirectUriAllowed(uri, policy.hosts)) continue;
    if (native && privateUseAllowed(uri, schemes)) continue;
    const scheme = parseExact(uri)?.protocol.slice(0, -1);
    const privateUse = scheme !== undefined && scheme !== 'http' && scheme !== 'https';
    return {
      uri,
      description: privateUse
        ? schemes.includes(scheme)
          ? `redirect URI ${uri}: a private-use scheme is allowed for native clients only (application_type native, or only loopback and private-use redirect URIs)`
          : `redirect URI ${uri} is not allowed here: private-use schemes need MCP_OAUTH_REDIRECT_SCHEMES (MCP asks for HTTPS or loopback)`
        : `redirect URI ${uri} is not allowed here (HTTPS to ${policy.hosts.join(', ')}, or a loopback address)`,
    };
  }
  if (deviceOnly) metadata.application_type = 'native';
  return undefined;
}

/** The log line of a refused registration: the URI and the setting that would allow it. */
export function logRefusedRedirect(logger: Logger, refusal: RedirectRefusal): void {
  logger.warn('client registration refused: redirect URI not allowed', {
    redirect_uri: refusal.uri.slice(0, 300),
    allowed:
      'HTTPS to a host of MCP_OAUTH_REDIRECT_HOSTS, a loopback address, or (native clients) a scheme of MCP_OAUTH_REDIRECT_SCHEMES',
  });
}
