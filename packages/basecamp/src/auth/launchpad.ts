import { z } from 'zod';

/** Launchpad (37signals' OAuth 2 server) endpoints, for login, refresh and logout. */

export interface LaunchpadOptions {
  launchpadUrl: string;
  userAgent: string;
  fetch: typeof fetch;
  timeoutMs: number;
  signal?: AbortSignal;
}

export type LaunchpadFailure =
  /** The refresh token or code is dead (400, e.g. `invalid_grant`): never try it again. */
  | 'invalid_grant'
  /** The app's client id or secret was refused (401). */
  | 'invalid_client'
  /** Launchpad could not be reached or timed out. */
  | 'unavailable'
  /** Anything else: a 5xx, an unexpected body. */
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
  const response = await send(options, '/authorization.json', {
    method: 'GET',
    headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
  });
  const body = await response.json().catch(() => undefined);
  if (!response.ok) {
    throw new LaunchpadError(
      response.status === 401 ? 'invalid_grant' : 'upstream',
      `Launchpad answered ${response.status} to GET /authorization.json.`,
      response.status,
    );
  }
  const parsed = AuthorizationSchema.safeParse(body);
  if (!parsed.success)
    throw new LaunchpadError('upstream', 'Launchpad sent an unexpected authorization.json.');
  return parsed.data;
}

/** `DELETE /authorization.json`: revokes the access token. Returns whether Launchpad confirmed it. */
export async function revokeToken(options: LaunchpadOptions, accessToken: string): Promise<boolean> {
  const response = await send(options, '/authorization.json', {
    method: 'DELETE',
    headers: { authorization: `Bearer ${accessToken}` },
  });
  await response.body?.cancel().catch(() => {});
  // 401: the token was already dead, which is what revoking wants.
  return response.ok || response.status === 401;
}

async function tokenRequest(options: LaunchpadOptions, form: Record<string, string>): Promise<TokenResponse> {
  const response = await send(options, '/authorization/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(form).toString(),
  });
  const body = await response.json().catch(() => undefined);
  if (response.status === 400) {
    throw new LaunchpadError(
      'invalid_grant',
      'Launchpad refused the grant (400): the code or refresh token is no longer valid.',
      400,
    );
  }
  if (response.status === 401) {
    throw new LaunchpadError(
      'invalid_client',
      'Launchpad refused the OAuth app (401): check BASECAMP_CLIENT_ID and BASECAMP_CLIENT_SECRET.',
      401,
    );
  }
  if (!response.ok) {
    throw new LaunchpadError(
      'upstream',
      `Launchpad answered ${response.status} to the token request.`,
      response.status,
    );
  }
  const parsed = TokenResponseSchema.safeParse(body);
  if (!parsed.success) throw new LaunchpadError('upstream', 'Launchpad answered without an access token.');
  return parsed.data;
}

async function send(options: LaunchpadOptions, path: string, init: RequestInit): Promise<Response> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    return await options.fetch(`${options.launchpadUrl}${path}`, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), 'user-agent': options.userAgent },
      signal,
    });
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason ?? error;
    throw new LaunchpadError(
      'unavailable',
      timeout.aborted
        ? `Launchpad at ${options.launchpadUrl} did not answer within ${options.timeoutMs} ms.`
        : `Cannot reach Launchpad at ${options.launchpadUrl}. Check your connection, or BASECAMP_LAUNCHPAD_URL.`,
    );
  }
}

/** The display name Launchpad gives for a person. */
export function identityName(authorization: Authorization): string | undefined {
  const identity = authorization.identity;
  if (!identity) return undefined;
  const name = [identity.first_name, identity.last_name].filter(Boolean).join(' ').trim();
  return name || identity.email_address || undefined;
}
