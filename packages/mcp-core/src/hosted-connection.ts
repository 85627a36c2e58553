/**
 * How a provider whose users each need their own upstream credentials joins a hosted,
 * multi-user server (`--auth oauth`). The provider declares its connection here, in core; the
 * hosted layer (`@x/mcp-hosted`) implements each kind once and never learns a provider's name.
 *
 * The four kinds a provider can be in hosted mode:
 * - a **sign-in** that can be the identity (`hosted: 'per-user'`, `connection.kind: 'sign-in'`):
 *   an OAuth authorization-code login at the upstream, whose identity becomes the user of the
 *   hosted server (Basecamp's Launchpad);
 * - a **linked account** with its own login flow (`hosted: 'per-user'`,
 *   `connection.kind: 'linked-account'`): a signed-in user links it on a page of the server
 *   (Forge's device login);
 * - **shared** credentials (`hosted: 'shared'`): the operator's, the same for everyone;
 * - **local** (`hosted: 'local'`): the server's own files; not served per user.
 */

/** Tokens an upstream issued. */
export interface UpstreamTokens {
  accessToken: string;
  refreshToken: string | undefined;
  /** Epoch ms. */
  expiresAt: number;
}

/** An account of a sign-in identity that the provider can serve (already filtered by the provider). */
export interface UpstreamAccount {
  id: string;
  name: string;
}

/** Who signed in at the upstream. */
export interface UpstreamIdentity {
  id: string;
  name: string;
  email: string;
  /** The accounts the provider's tools can use (e.g. Basecamp 3/4 accounts only). */
  accounts: UpstreamAccount[];
}

/**
 * The upstream refused a grant (an `invalid_grant` refresh token, an expired authorization, an
 * unknown identity): only a new sign-in or link helps. `error` is the upstream's code, never a token.
 */
const GRANT_BRAND = Symbol.for('@x/mcp-core.UpstreamGrantError');

export class UpstreamGrantError extends Error {
  readonly [GRANT_BRAND] = true;

  constructor(
    readonly error: string,
    readonly upstream = 'The upstream',
  ) {
    super(`${upstream} refused the grant (${error}).`);
    this.name = 'UpstreamGrantError';
  }

  /** Works across duplicate installs (and bundled copies) of this package, unlike `instanceof`. */
  static isInstance(value: unknown): value is UpstreamGrantError {
    return (
      typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[GRANT_BRAND] === true
    );
  }
}

/**
 * How many refused refreshes the whole server may spend, when the upstream punishes them (one
 * shared client id for every user): past `threshold` in `windowMs`, no refresh for anyone.
 */
export interface RefreshBudget {
  /** The store key of the window, e.g. `budget:launchpad:invalid_grant` (kept: stored data). */
  key: string;
  windowMs: number;
  /** The breaker opens at this many failures in the window. */
  threshold: number;
  /** The readiness check's name, e.g. `launchpad-refresh`. */
  checkName: string;
  /** Why there is a budget, for the readiness detail, e.g. `Launchpad bans at 5`. */
  reason: string;
}

/** The OAuth app a hosted server registered at the upstream, from the operator's environment. */
export interface SignInApp {
  clientId: string;
  clientSecret: string;
  /** The upstream's authorization server origin (the declaration's default unless the operator set one). */
  url: string;
  /** `<public>/oauth/callback/<provider id>`, registered exactly at the upstream. */
  redirectUri: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/** The calls the hosted sign-in makes at the upstream. Tokens and secrets never appear in errors. */
export interface SignInClient {
  /** The declaration it implements. */
  readonly connection: SignInConnection;
  authorizationUrl(state: string): string;
  /** `UpstreamGrantError` when the code is refused; retryable `UPSTREAM_UNAVAILABLE` when unreachable. */
  exchangeCode(code: string, signal?: AbortSignal): Promise<UpstreamTokens>;
  /** `UpstreamGrantError` when the refresh token is dead. */
  refresh(refreshToken: string, signal?: AbortSignal): Promise<UpstreamTokens>;
  identify(accessToken: string, signal?: AbortSignal): Promise<UpstreamIdentity>;
  /** Best effort: revokes an access token (a refused sign-in, `users revoke`). */
  revoke(accessToken: string): Promise<void>;
}

/** A sign-in that can be the identity of the hosted server's users (`connection.kind: 'sign-in'`). */
export interface SignInConnection {
  kind: 'sign-in';
  /**
   * The provider's id (`ProviderMetadata.id`): the hosted server's user ids are
   * `<provider>:<identity id>`, its callback `/oauth/callback/<provider>`, the stored connection
   * `conn:<user>:<provider>`.
   */
  provider: string;
  /** The upstream sign-in's name on pages and in logs, e.g. `Basecamp`. */
  title: string;
  /** The environment variables of the operator's app; `url` defaults to `defaultUrl`. */
  env: { clientId: string; clientSecret: string; url: string; allowedAccounts: string };
  defaultUrl: string;
  /** What the sign-in gives access to, on the consent page ("read your … projects"). */
  access: { read: string; write: string };
  /** Refused refreshes the server may spend, when the upstream bans for them. */
  refreshBudget?: RefreshBudget;
  /**
   * The provider's setting that narrows its tools to some projects (a list of project ids), when
   * it has one: the policy's `projects` for a person is given to their instance there. Without it
   * a policy that names projects is refused at start (decision 0028).
   */
  projects?: { setting: string };
  client(app: SignInApp): SignInClient;
}

/** A started device login (RFC 8628 style). */
export interface DeviceStart {
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  /** Seconds the code lives. */
  expiresIn: number;
  /** Seconds between polls the upstream asks for. */
  interval: number;
}

/**
 * A linked account as the provider's login returned it, sealed as it is (plus when it was linked
 * and last updated) under `conn:<userId>:<provider>`: the token fields, the person, and whatever
 * fields of its own the provider's credentials need (e.g. a team id).
 */
export interface LinkedAccount {
  accessToken: string;
  refreshToken: string;
  /** Epoch ms. */
  expiresAt: number;
  user: { email: string; displayName: string };
  readonly [field: string]: unknown;
}

export type DevicePoll =
  | { status: 'approved'; account: LinkedAccount }
  | { status: 'pending' }
  | { status: 'refused'; reason: 'expired_token' | 'access_denied' | 'other' };

/** The calls a linked-account login makes at the upstream (a device login, polled once per user action). */
export interface LinkedAccountClient {
  /** The upstream's base URL (for messages). */
  readonly url: string;
  start(): Promise<DeviceStart>;
  poll(deviceCode: string): Promise<DevicePoll>;
  /** A new access token; `UpstreamGrantError` when the refresh token is dead. */
  refresh(
    refreshToken: string,
    signal?: AbortSignal,
  ): Promise<{ accessToken: string; expiresAt: number; refreshToken?: string }>;
}

/** A linked account with its own login flow (`connection.kind: 'linked-account'`). */
export interface LinkedAccountConnection {
  kind: 'linked-account';
  /** The provider's id: the link page is `/connect/<provider>`, the record `conn:<userId>:<provider>`. */
  provider: string;
  /** The upstream's name on pages and in messages, e.g. `Forge`. */
  title: string;
  /** Where the upstream's URL comes from: the provider's setting (config file) and variable, and its default. */
  url: { setting: string; env: string; default: string };
  /** Refresh this long before the access token expires. */
  refreshMarginMs: number;
  client(options: { url: string; fetch?: typeof fetch; timeoutMs?: number }): LinkedAccountClient;
  /** The provider's `settings.credentials` value for a link (e.g. `{ accessToken, teamId }`). */
  credentials(account: LinkedAccount): unknown;
  /** Who is linked, for pages (`name`, `detail` in brackets) and `whoami` (`fields`). */
  describe(account: LinkedAccount): { name: string; detail: string; fields: Record<string, string> };
}

/** A person the fake sign-in of a hosted sandbox lets one pick. */
export interface HostedSandboxPerson {
  name: string;
  email: string;
  accounts: readonly UpstreamAccount[];
}

/**
 * A provider's fakes for `x-mcp-server --http --auth oauth --sandbox` (its declaration's
 * `sandbox()`, from its `/testing` entry), on 127.0.0.1: the composed server starts the fakes of
 * the providers it serves per user and points each provider at its own.
 */
export interface HostedSandboxFake {
  /** Settings that point the provider at its fake, laid over the config's (e.g. `{ apiUrl }`). */
  settings: Record<string, unknown>;
  /** Variables the server reads as if the operator had set them (e.g. the fake's URL). */
  env?: Record<string, string>;
  /** With a sign-in: the fake's app and its sign-in page, where a person picks who they are. */
  signIn?: {
    /** The fake sign-in's name, e.g. `Launchpad` ("the fake Launchpad's page"). */
    name: string;
    /** The app the fake accepts, made for this run; its URL stands for the sign-in's `env.url`. */
    clientId: string;
    clientSecret: string;
    url: string;
    /** The accounts admitted unless the operator sets the sign-in's `env.allowedAccounts`. */
    allowedAccounts: readonly string[];
    people: readonly HostedSandboxPerson[];
  };
  /** What runs where, for the banner, e.g. `fake Forge: http://127.0.0.1:…`. */
  description: string;
  close(): Promise<void>;
}

/**
 * What `ProviderMetadata.connection` declares: the kind, its implementation loaded when hosted,
 * and its fakes for the hosted sandbox (loaded only with `--sandbox`).
 */
export type HostedConnectionDeclaration =
  | { kind: 'sign-in'; load(): Promise<SignInConnection>; sandbox?(): Promise<HostedSandboxFake> }
  | {
      kind: 'linked-account';
      load(): Promise<LinkedAccountConnection>;
      sandbox?(): Promise<HostedSandboxFake>;
    };
