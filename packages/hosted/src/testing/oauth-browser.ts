import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/client';

interface Cookie {
  name: string;
  value: string;
  origin: string;
  path: string;
}

export interface BrowserPage {
  status: number;
  /** Where the browser ended (the stop URL, or the page's URL). */
  url: URL;
  body: string;
  headers: Headers;
}

export interface OAuthBrowserOptions {
  /** Stop following redirects here (e.g. at the MCP client's redirect URI) instead of requesting it. */
  stopAt?(url: URL): boolean;
  /** Most redirects followed in one navigation. Default 20. */
  maxRedirects?: number;
}

/**
 * A headless browser for OAuth flows in tests: follows redirects by hand, keeps a cookie jar
 * (host-only, path-aware, `Max-Age=0` deletes), submits the page's form. Real HTTP on loopback.
 */
export class OAuthBrowser {
  readonly cookies: Cookie[] = [];
  /** Every URL requested, in order. */
  readonly visited: URL[] = [];
  /** The last URL where `stopAt` stopped a navigation (not requested). */
  stoppedAt: URL | undefined;
  readonly #options: OAuthBrowserOptions;

  constructor(options: OAuthBrowserOptions = {}) {
    this.#options = options;
  }

  /** Navigates to `url` (GET) and follows redirects. */
  open(url: string | URL): Promise<BrowserPage> {
    return this.#navigate(new URL(url), { method: 'GET' });
  }

  /**
   * Submits the first `<form method="post">` of `page` with its hidden fields plus `fields`
   * (e.g. `{ decision: 'approve' }`); `omit` drops hidden fields (e.g. the CSRF token).
   */
  submit(
    page: BrowserPage,
    fields: Record<string, string>,
    omit: readonly string[] = [],
  ): Promise<BrowserPage> {
    const form = /<form[^>]*method="post"[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/i.exec(page.body);
    if (!form?.[1]) throw new Error(`No form on ${page.url.href}: ${page.body.slice(0, 200)}`);
    const body = new URLSearchParams();
    for (const input of (form[2] ?? '').matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
      const [, name = '', value = ''] = input;
      if (!omit.includes(name)) body.set(name, unescapeHtml(value));
    }
    for (const [name, value] of Object.entries(fields)) body.set(name, value);
    const target = new URL(unescapeHtml(form[1]), page.url);
    return this.#navigate(target, {
      method: 'POST',
      // As a browser does for a same-origin form POST (referrer policy permitting).
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(target.origin === page.url.origin ? { origin: page.url.origin } : { origin: 'null' }),
      },
      body: body.toString(),
    });
  }

  async #navigate(start: URL, init: RequestInit): Promise<BrowserPage> {
    let url = start;
    let request = init;
    for (let hop = 0; hop <= (this.#options.maxRedirects ?? 20); hop++) {
      if (this.#options.stopAt?.(url)) {
        this.stoppedAt = url;
        return { status: 0, url, body: '', headers: new Headers() };
      }
      this.visited.push(url);
      const cookie = this.#cookieHeader(url);
      const response = await fetch(url, {
        ...request,
        redirect: 'manual',
        headers: { ...(request.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
      });
      this.#store(url, response.headers.getSetCookie());
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.arrayBuffer();
        url = new URL(location, url);
        request = { method: 'GET' };
        continue;
      }
      return { status: response.status, url, body: await response.text(), headers: response.headers };
    }
    throw new Error(`Too many redirects from ${start.href}`);
  }

  #cookieHeader(url: URL): string {
    return this.cookies
      .filter((cookie) => cookie.origin === url.origin && pathMatches(url.pathname, cookie.path))
      .map((cookie) => `${cookie.name}=${cookie.value}`)
      .join('; ');
  }

  #store(url: URL, headers: string[]): void {
    for (const header of headers) {
      const [pair = '', ...attributes] = header.split(';').map((part) => part.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      let path = '/';
      let remove = false;
      for (const attribute of attributes) {
        const [key = '', val = ''] = attribute.split('=');
        if (key.toLowerCase() === 'path') path = val || '/';
        if (key.toLowerCase() === 'max-age' && Number(val) <= 0) remove = true;
        if (key.toLowerCase() === 'expires' && Date.parse(val) <= Date.now()) remove = true;
      }
      const index = this.cookies.findIndex(
        (cookie) => cookie.name === name && cookie.origin === url.origin && cookie.path === path,
      );
      if (index >= 0) this.cookies.splice(index, 1);
      if (!remove) this.cookies.push({ name, value, origin: url.origin, path });
    }
  }
}

function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}

function unescapeHtml(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_match, code: string) => String.fromCharCode(Number(code)))
    .replace(/&amp;/g, '&');
}

/**
 * An in-memory `OAuthClientProvider` for the SDK v2 client: registers dynamically with the given
 * auth method, keeps tokens and the PKCE verifier, and records the authorization URL instead of
 * opening a browser (hand it to an `OAuthBrowser`).
 */
export class TestOAuthClient implements OAuthClientProvider {
  authorizationUrl: URL | undefined;
  /** Set to use a Client ID Metadata Document (an HTTPS URL) instead of registering. */
  clientMetadataUrl?: string;
  /**
   * What it registers, when not its `redirectUrl`: e.g. `http://127.0.0.1/callback` (no port) for
   * a native client that then listens on a port of its own.
   */
  registeredRedirectUris?: string[];
  #client: Awaited<ReturnType<NonNullable<OAuthClientProvider['clientInformation']>>>;
  #tokens: Awaited<ReturnType<OAuthClientProvider['tokens']>>;
  #verifier = '';
  #discovery: OAuthDiscoveryState | undefined;

  constructor(
    readonly redirectUrl: string,
    readonly authMethod: 'none' | 'client_secret_post' = 'none',
    readonly clientName = 'Test client',
  ) {}

  get clientMetadata() {
    return {
      client_name: this.clientName,
      redirect_uris: this.registeredRedirectUris ?? [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: this.authMethod,
    };
  }

  clientInformation() {
    return this.#client;
  }

  saveClientInformation(info: NonNullable<typeof this.clientInformation extends () => infer R ? R : never>) {
    this.#client = info;
  }

  tokens() {
    return this.#tokens;
  }

  saveTokens(tokens: NonNullable<Awaited<ReturnType<OAuthClientProvider['tokens']>>>) {
    this.#tokens = tokens;
  }

  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }

  codeVerifier() {
    return this.#verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.#discovery = state;
  }

  discoveryState() {
    return this.#discovery;
  }

  /** Forgets what the SDK asks to forget (e.g. tokens after a refused refresh). */
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'tokens') this.#tokens = undefined;
    if (scope === 'all' || scope === 'client') this.#client = undefined;
    if (scope === 'all' || scope === 'verifier') this.#verifier = '';
    if (scope === 'all' || scope === 'discovery') this.#discovery = undefined;
  }
}
