import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpToolError } from '@x/mcp-core';
import { DEFAULT_REDIRECT_URI, resolveSettings } from '../settings.js';
import { VERSION } from '../version.js';
import {
  type Authorization,
  exchangeCode,
  getAuthorization,
  identityName,
  LaunchpadError,
  type LaunchpadOptions,
  revokeToken,
} from './launchpad.js';
import { readLogin, removeLogin, type StoredLogin, writeLogin } from './token-file.js';

export interface LoginOptions {
  /** Default: `$BASECAMP_CLIENT_ID`. */
  clientId?: string;
  /** Default: `$BASECAMP_CLIENT_SECRET`. */
  clientSecret?: string;
  /** Default: `$BASECAMP_REDIRECT_URI`, then `http://127.0.0.1:8765/callback`. Port 0 picks a free port. */
  redirectUri?: string;
  /** Default: `$BASECAMP_LAUNCHPAD_URL`, then `https://launchpad.37signals.com`. */
  launchpadUrl?: string;
  /** Default: `$BASECAMP_TOKEN_FILE`, then the OS config directory. */
  tokenFile?: string;
  /** The Basecamp account to use (`--account`); needed when there are several and no `prompt`. */
  accountId?: string;
  env?: Record<string, string | undefined>;
  fetch?: typeof fetch;
  /** Messages for the user. Default: stderr. */
  write?: (text: string) => void;
  /** Asks the user a question (account choice); without it, several accounts need `accountId`. */
  prompt?: (question: string) => Promise<string>;
  /** Called with the authorization URL once the callback server listens (tests open it). */
  onAuthorizeUrl?: (url: string) => void;
  /** How long to wait for the browser to come back. Default 5 minutes. */
  waitMs?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface LoginResult {
  login: StoredLogin;
  tokenFile: string;
}

/** A login that did not succeed; the message says what to do. */
export class LoginError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LoginError';
  }
}

const APP_SETUP =
  'Register an app at https://launchpad.37signals.com/integrations (see the README), then set BASECAMP_CLIENT_ID and BASECAMP_CLIENT_SECRET.';

/**
 * OAuth 2 with Launchpad: a one-shot callback server on 127.0.0.1, the authorization URL
 * printed for the user, the code exchanged, `authorization.json` read, a Basecamp (bc3) account
 * chosen, and the tokens saved to a 0600 file.
 */
export async function login(options: LoginOptions = {}): Promise<LoginResult> {
  const write = options.write ?? ((text: string) => process.stderr.write(text));
  const started = await startLogin({ ...options, write });
  write(
    `\nTo let basecamp-mcp use your Basecamp, open this address in a browser and allow access:\n\n  ${started.authorizeUrl}\n\nWaiting for Basecamp to send you back to ${started.redirectUri} (Ctrl+C cancels)...\n`,
  );
  options.onAuthorizeUrl?.(started.authorizeUrl);
  return started.result;
}

/** A login waiting for the browser: where to send the person, and how it ends. */
export interface StartedLogin {
  /** Launchpad's authorization page, with this login's `state`. */
  authorizeUrl: string;
  /** Where Launchpad sends the browser back (the callback server listens there). */
  redirectUri: string;
  /** The saved login; rejects with a `LoginError` that says what to do. */
  result: Promise<LoginResult>;
  /** Stops waiting and closes the callback server; `result` rejects, nothing is saved. */
  cancel(): void;
}

/**
 * The login of `login`, up to the point where the browser must be sent to Launchpad: the
 * callback server listens once this resolves. Sign-in from the agent sends the person to
 * `authorizeUrl` through the client; `basecamp-mcp login` prints it.
 */
export async function startLogin(
  options: LoginOptions & { from?: 'terminal' | 'agent' } = {},
): Promise<StartedLogin> {
  const env = options.env ?? process.env;
  const settings = resolveSettings(
    {
      env,
      ...(options.launchpadUrl === undefined ? {} : { launchpadUrl: options.launchpadUrl }),
      ...(options.tokenFile === undefined ? {} : { tokenFile: options.tokenFile }),
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      // The account is chosen below; an invalid BASECAMP_ACCOUNT_ID must not stop a login.
      accountId: undefined,
    },
    VERSION,
  );
  const write = options.write ?? ((text: string) => process.stderr.write(text));
  const back = options.from === 'agent' ? 'your agent' : 'the terminal';
  const clientId = options.clientId ?? (env.BASECAMP_CLIENT_ID || undefined);
  const clientSecret = options.clientSecret ?? (env.BASECAMP_CLIENT_SECRET || undefined);
  if (!clientId || !clientSecret) {
    throw new LoginError(`BASECAMP_CLIENT_ID and BASECAMP_CLIENT_SECRET are needed to log in. ${APP_SETUP}`);
  }
  const redirect = parseRedirectUri(
    options.redirectUri ?? (env.BASECAMP_REDIRECT_URI || DEFAULT_REDIRECT_URI),
  );
  const cancelled = new AbortController();
  const stop = () => cancelled.abort();
  options.signal?.addEventListener('abort', stop, { once: true });
  const launchpad: LaunchpadOptions = {
    launchpadUrl: settings.launchpadUrl,
    userAgent: settings.userAgent,
    fetch: settings.fetch,
    timeoutMs: settings.timeoutMs,
    signal: cancelled.signal,
  };

  const state = randomBytes(16).toString('hex');
  let callback: Awaited<ReturnType<typeof listenForCallback>>;
  try {
    callback = await listenForCallback(redirect, state, options.waitMs ?? 5 * 60_000, cancelled.signal);
  } catch (error) {
    options.signal?.removeEventListener('abort', stop);
    throw error;
  }
  const authorizeUrl = new URL(`${settings.launchpadUrl}/authorization/new`);
  authorizeUrl.searchParams.set('response_type', 'code');
  authorizeUrl.searchParams.set('client_id', clientId);
  authorizeUrl.searchParams.set('redirect_uri', callback.redirectUri);
  authorizeUrl.searchParams.set('state', state);

  const finish = async (): Promise<LoginResult> => {
    try {
      const code = await callback.code;
      // The browser waits on its answer until the code is exchanged, so it shows the real outcome.
      try {
        const tokens = await exchangeCode(launchpad, {
          clientId,
          clientSecret,
          redirectUri: callback.redirectUri,
          code,
        });
        const authorization = await getAuthorization(launchpad, tokens.access_token);
        const account = await chooseAccount(authorization, options.accountId, options.prompt, write, () =>
          callback.answer(
            200,
            'basecamp-mcp is signed in to Basecamp. Choose the account in the terminal; you can close this tab.',
          ),
        );
        const login: StoredLogin = {
          accessToken: tokens.access_token,
          ...(tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {}),
          expiresAt: new Date(Date.now() + (tokens.expires_in ?? 1_209_600) * 1000).toISOString(),
          accountId: String(account.id),
          accountName: account.name,
          identity: {
            ...(authorization.identity?.id === undefined ? {} : { id: authorization.identity.id }),
            ...(identityName(authorization) ? { name: identityName(authorization) } : {}),
            ...(authorization.identity?.email_address ? { email: authorization.identity.email_address } : {}),
          },
          clientId,
          clientSecret,
        };
        await writeLogin(settings.tokenFile, login);
        write(
          `Logged in to Basecamp as ${identityName(authorization) ?? 'you'}, account "${account.name}" (${account.id}). Saved to ${settings.tokenFile}\n`,
        );
        await callback.answer(
          200,
          `basecamp-mcp is signed in to Basecamp as ${identityName(authorization) ?? 'you'}, account "${account.name}". You can close this tab and return to ${back}.`,
        );
        return { login, tokenFile: settings.tokenFile };
      } catch (error) {
        const failure = loginFailure(error);
        await callback.answer(502, `Sign-in did not complete: ${failure.message} Details are in ${back}.`);
        throw failure;
      }
    } finally {
      callback.close();
      options.signal?.removeEventListener('abort', stop);
    }
  };
  const result = finish();
  // Nobody may be waiting yet when it fails (a cancel before anyone awaits it).
  result.catch(() => {});
  return { authorizeUrl: authorizeUrl.toString(), redirectUri: callback.redirectUri, result, cancel: stop };
}

/** What a failed exchange means for the person logging in. */
function loginFailure(error: unknown): Error {
  if (error instanceof LaunchpadError) {
    return new LoginError(
      error.failure === 'invalid_client'
        ? `Launchpad refused the app's client id or secret. Check BASECAMP_CLIENT_ID and BASECAMP_CLIENT_SECRET.`
        : error.failure === 'invalid_grant'
          ? 'Launchpad refused the authorization code (it expired or the redirect URI differs from the registered one). Run `basecamp-mcp login` again.'
          : `${error.message} Try again in a moment.`,
    );
  }
  if (McpToolError.isInstance(error)) return new LoginError(error.message);
  return error instanceof Error ? error : new LoginError(String(error));
}

export interface LogoutResult {
  /** Whether there was a login file to delete. */
  removed: boolean;
  /** Whether Launchpad confirmed the token is revoked. */
  revoked: boolean;
  tokenFile: string;
}

/** Revokes the saved access token at Launchpad (best effort) and deletes the login file. */
export async function logout(
  options: Pick<LoginOptions, 'env' | 'fetch' | 'launchpadUrl' | 'tokenFile' | 'timeoutMs' | 'signal'> = {},
): Promise<LogoutResult> {
  const settings = resolveSettings(
    {
      env: options.env ?? process.env,
      accountId: undefined,
      ...(options.launchpadUrl === undefined ? {} : { launchpadUrl: options.launchpadUrl }),
      ...(options.tokenFile === undefined ? {} : { tokenFile: options.tokenFile }),
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    },
    VERSION,
  );
  const saved = await readLogin(settings.tokenFile).catch(() => undefined);
  let revoked = false;
  if (saved) {
    revoked = await revokeToken(
      {
        launchpadUrl: settings.launchpadUrl,
        userAgent: settings.userAgent,
        fetch: settings.fetch,
        timeoutMs: settings.timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
      },
      saved.accessToken,
    ).catch(() => false);
  }
  const removed = await removeLogin(settings.tokenFile);
  return { removed, revoked, tokenFile: settings.tokenFile };
}

interface Redirect {
  host: string;
  port: number;
  path: string;
  protocolHost: string;
}

function parseRedirectUri(raw: string): Redirect {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new LoginError(`BASECAMP_REDIRECT_URI is not a URL: "${raw.slice(0, 200)}".`);
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (url.protocol !== 'http:' || !['127.0.0.1', 'localhost', '::1'].includes(host)) {
    throw new LoginError(
      `BASECAMP_REDIRECT_URI must be a local http address such as ${DEFAULT_REDIRECT_URI} (the login listens there), got "${raw.slice(0, 200)}".`,
    );
  }
  return {
    host: host === 'localhost' ? '127.0.0.1' : host,
    port: url.port === '' ? 80 : Number(url.port),
    path: url.pathname || '/',
    protocolHost: url.hostname,
  };
}

/**
 * A server that waits for Launchpad's redirect with `?code=...&state=...`. The browser's request
 * is held open until `answer` tells it how the login ended; `close` stops the server.
 */
async function listenForCallback(redirect: Redirect, state: string, waitMs: number, signal?: AbortSignal) {
  let settle: { resolve: (code: string) => void; reject: (error: Error) => void } | undefined;
  const code = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // Nobody may be waiting yet when it fails (e.g. the server cannot start).
  code.catch(() => {});
  let pending: ServerResponse | undefined;
  const page = (response: ServerResponse, status: number, message: string) =>
    new Promise<void>((resolve) => {
      response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', connection: 'close' });
      response.end(
        `<!doctype html><meta charset="utf-8"><title>basecamp-mcp</title><p>${escapeHtml(message)}</p>`,
        () => resolve(),
      );
      response.once('close', () => resolve());
    });
  // Loaded here, not at import: the MCP server imports this module and never needs node:http over stdio.
  const { createServer } = await import('node:http');
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== redirect.path) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      response.end('Not found');
      return;
    }
    if (url.searchParams.get('state') !== state) {
      void page(
        response,
        400,
        'This sign-in link does not belong to the running login. Start again with basecamp-mcp login.',
      );
      return;
    }
    if (pending) {
      void page(response, 409, 'This sign-in is already being completed. Return to the terminal.');
      return;
    }
    const error = url.searchParams.get('error');
    const received = url.searchParams.get('code');
    if (error || !received) {
      void page(response, 400, 'Basecamp did not grant access. You can close this tab.');
      settle?.reject(
        new LoginError(
          error === 'access_denied'
            ? 'Access was denied in the browser. Run `basecamp-mcp login` to try again.'
            : 'Basecamp sent no authorization code. Run `basecamp-mcp login` again.',
        ),
      );
      return;
    }
    pending = response;
    settle?.resolve(received);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new LoginError(
          error.code === 'EADDRINUSE'
            ? `Port ${redirect.port} is busy, so the login cannot receive Basecamp's answer. Free it, or register another redirect URI and set BASECAMP_REDIRECT_URI.`
            : `Cannot listen on ${redirect.host}:${redirect.port} for the login (${error.code ?? error.message}).`,
        ),
      ),
    );
    server.listen(redirect.port, redirect.host, resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const timer = setTimeout(
    () =>
      settle?.reject(new LoginError('No answer from the browser in time. Run `basecamp-mcp login` again.')),
    waitMs,
  );
  const onAbort = () => settle?.reject(new LoginError('Login cancelled; nothing was saved.'));
  signal?.addEventListener('abort', onAbort, { once: true });
  return {
    redirectUri: `http://${redirect.protocolHost.includes(':') ? `[${redirect.protocolHost}]` : redirect.protocolHost}:${port}${redirect.path}`,
    code,
    /** Tells the waiting browser how the login ended; only the first answer counts. */
    answer: async (status: number, message: string) => {
      const response = pending;
      if (!response || response.headersSent) return;
      await page(response, status, message);
    },
    close: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      server.closeAllConnections();
      server.close();
    },
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

type Account = Authorization['accounts'][number];

async function chooseAccount(
  authorization: Authorization,
  wanted: string | undefined,
  prompt: LoginOptions['prompt'],
  write: (text: string) => void,
  beforePrompt: () => Promise<void>,
): Promise<Account> {
  const accounts = authorization.accounts.filter((account) => account.product === 'bc3');
  const list = accounts.map((account) => `${account.id} (${account.name})`).join(', ');
  if (accounts.length === 0) {
    throw new LoginError(
      'This Basecamp login has no Basecamp 4 (bc3) account. Sign in with the person who uses the account, then run `basecamp-mcp login` again.',
    );
  }
  if (wanted !== undefined) {
    const found = accounts.find((account) => String(account.id) === wanted.trim());
    if (!found)
      throw new LoginError(`Account ${wanted} is not one of this login's Basecamp accounts: ${list}.`);
    return found;
  }
  if (accounts.length === 1) return accounts[0] as Account;
  if (!prompt) {
    throw new LoginError(
      `This login reaches several Basecamp accounts: ${list}. Run \`basecamp-mcp login --account <id>\` with one of them.`,
    );
  }
  // The browser should not wait on a question asked in the terminal.
  await beforePrompt();
  write(
    `\nThis login reaches several Basecamp accounts:\n${accounts.map((account, index) => `  ${index + 1}. ${account.name} (${account.id})`).join('\n')}\n`,
  );
  for (let tries = 0; tries < 3; tries++) {
    const answer = (await prompt(`Which one should basecamp-mcp use? [1-${accounts.length}] `)).trim();
    const byIndex = accounts[Number(answer) - 1];
    const chosen = /^\d+$/.test(answer)
      ? (byIndex ?? accounts.find((account) => String(account.id) === answer))
      : undefined;
    if (chosen) return chosen;
    write(`Please answer with a number from 1 to ${accounts.length}.\n`);
  }
  throw new LoginError(`No account chosen. Run \`basecamp-mcp login --account <id>\` with one of: ${list}.`);
}
