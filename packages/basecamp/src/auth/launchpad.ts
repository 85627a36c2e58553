import { createUpstreamClient, type UpstreamClient } from '@x/mcp-core/upstream';
import { z } from 'zod';

/** Launchpad (37signals' OAuth 2 server) endpoints, for login, refresh and logout. */

export interface LaunchpadOptions {
  launchpadUrl: string;
  userAgent: string;
  fetch: typeof fetch;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * Answers of Launchpad that mean something for the login. Everything else (not reachable, timed
 * out, a 5xx) is a tool error from the shared upstream client, naming Launchpad.
 */
export type LaunchpadFailure =
  /** The refresh token or code is dead (400, e.g. `invalid_grant`): never try it again. */
  | 'invalid_grant'
  /** The app's client id or secret was refused (401). */
  | 'invalid_client'
  /** An answer without what it should hold. */
  | 'upstream';

export class LaunchpadError extends Error {
  readonly failure: LaunchpadFailure;
  readonly status: number | undefined;
  constructor(failure: LaunchpadFailure, message: string, status?: number) {
    super(message);
    this.name = 'LaunchpadError';
    this.failure = failure;
    this.status = status;
  }
}

const TokenResponseSchema = z.looseObject({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  expires_in: z.number().positive().optional(),
  refresh_token: z.string().min(1).optional(),
});
export type TokenResponse = z.infer<typeof TokenResponseSchema>;

const AuthorizationSchema = z.looseObject({
  expires_at: z.string().optional(),
  identity: z
    .looseObject({
      id: z.number().optional(),
      first_name: z.string().nullish(),
      last_name: z.string().nullish(),
      email_address: z.string().nullish(),
    })
    .optional(),
  accounts: z.array(
    z.looseObject({
      product: z.string(),
      id: z.number(),
      name: z.string(),
      href: z.string().optional(),
      app_href: z.string().optional(),
    }),
  ),
});
export type Authorization = z.infer<typeof AuthorizationSchema>;

/** `POST /authorization/token` with `grant_type=authorization_code`. */
export function exchangeCode(
  options: LaunchpadOptions,
  params: { clientId: string; clientSecret: string; redirectUri: string; code: string },
): Promise<TokenResponse> {
  return tokenRequest(options, {
    grant_type: 'authorization_code',
    client_id: params.clientId,
    client_secret: params.clientSecret,
    redirect_uri: params.redirectUri,
    code: params.code,
  });
}

/** `POST /authorization/token` with `grant_type=refresh_token`. */
export function refreshToken(
  options: LaunchpadOptions,
  params: { clientId: string; clientSecret: string; refreshToken: string },
): Promise<TokenResponse> {
  return tokenRequest(options, {
    grant_type: 'refresh_token',
    client_id: params.clientId,
    client_secret: params.clientSecret,
    refresh_token: params.refreshToken,
  });
}

/** `GET /authorization.json`: the identity and the accounts this token reaches. */
export async function getAuthorization(
  options: LaunchpadOptions,
  accessToken: string,
): Promise<Authorization> {
  const answer = await launchpad(options).request('GET', '/authorization.json', {
    headers: { authorization: `Bearer ${accessToken}` },
    secrets: [accessToken],
    accept: [401],
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (answer.status === 401) {
    throw new LaunchpadError('invalid_grant', 'Launchpad answered 401 to GET /authorization.json.', 401);
  }
  const parsed = AuthorizationSchema.safeParse(answer.data);
  if (!parsed.success)
    throw new LaunchpadError('upstream', 'Launchpad sent an unexpected authorization.json.');
  return parsed.data;
}

/** `DELETE /authorization.json`: revokes the access token. Returns whether Launchpad confirmed it. */
export async function revokeToken(options: LaunchpadOptions, accessToken: string): Promise<boolean> {
  const answer = await launchpad(options).request('DELETE', '/authorization.json', {
    headers: { authorization: `Bearer ${accessToken}` },
    secrets: [accessToken],
    accept: 'any',
    ...(options.signal ? { signal: options.signal } : {}),
  });
  // 401: the token was already dead, which is what revoking wants.
  return answer.status < 300 || answer.status === 401;
}

async function tokenRequest(options: LaunchpadOptions, form: Record<string, string>): Promise<TokenResponse> {
  const answer = await launchpad(options).request('POST', '/authorization/token', {
    form,
    accept: [400, 401],
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (answer.status === 400) {
    throw new LaunchpadError(
      'invalid_grant',
      'Launchpad refused the grant (400): the code or refresh token is no longer valid.',
      400,
    );
  }
  if (answer.status === 401) {
    throw new LaunchpadError(
      'invalid_client',
      'Launchpad refused the OAuth app (401): check BASECAMP_CLIENT_ID and BASECAMP_CLIENT_SECRET.',
      401,
    );
  }
  const parsed = TokenResponseSchema.safeParse(answer.data);
  if (!parsed.success) throw new LaunchpadError('upstream', 'Launchpad answered without an access token.');
  return parsed.data;
}

/**
 * Launchpad through the shared upstream client: the time limit over the whole exchange, no
 * redirected posts, the client secret and tokens kept out of quoted error text, one retry of a
 * read after a lost connection or a 5xx.
 */
function launchpad(options: LaunchpadOptions): UpstreamClient {
  return createUpstreamClient({
    name: 'Launchpad',
    baseUrl: options.launchpadUrl,
    urlSetting: 'BASECAMP_LAUNCHPAD_URL',
    headers: { 'user-agent': options.userAgent },
    timeoutMs: options.timeoutMs,
    fetch: options.fetch,
    retry: { maxRetries: 1 },
  });
}

/** The display name Launchpad gives for a person. */
export function identityName(authorization: Authorization): string | undefined {
  const identity = authorization.identity;
  if (!identity) return undefined;
  const name = [identity.first_name, identity.last_name].filter(Boolean).join(' ').trim();
  return name || identity.email_address || undefined;
}
