import { sleep } from '@x/mcp-core/upstream';
import { z } from 'zod';
import { forgeUpstream } from '../client/upstream.js';
import { resolveSettings } from '../settings.js';
import { type ForgeConfig, removeConfig, writeConfig } from './config-file.js';

export interface LoginOptions {
  /** Default: `$FORGE_API_URL`, then `https://www.forge-ai.dev/api`. */
  apiUrl?: string;
  /** Default: `$FORGE_CONFIG_PATH`, then `~/.forge/config.json`. */
  configPath?: string;
  env?: Record<string, string | undefined>;
  fetch?: typeof fetch;
  /** Where the instructions for the user go. Default: stderr. */
  write?: (text: string) => void;
  /** Cancels the login; nothing is written. */
  signal?: AbortSignal;
  /** Replaces the polling interval the server asks for (tests). */
  pollIntervalMs?: number;
  /** Added to the interval when the server answers `slow_down`. Default 5000 (RFC 8628). */
  slowDownMs?: number;
  /** Time limit of one HTTP request. Default 30000. */
  timeoutMs?: number;
}

export interface LoginResult {
  config: ForgeConfig;
  configPath: string;
}

/** A login that did not succeed; the message says what to do. */
export class LoginError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LoginError';
  }
}

const DeviceCodeSchema = z.object({
  deviceCode: z.string().min(1),
  userCode: z.string().min(1),
  verificationUri: z.string().min(1),
  expiresIn: z.number().positive().optional(),
  interval: z.number().positive().optional(),
});

const DeviceTokenSchema = z.object({
  accessToken: z.string().min(1),
  refreshToken: z.string(),
  userId: z.string(),
  teamId: z.string(),
  user: z.object({ email: z.string(), displayName: z.string() }),
});

/** The CLI records a token as valid for 15 minutes; we write the same. Renewal happens on a 401 either way. */
const ASSUMED_TOKEN_LIFETIME_MS = 15 * 60 * 1000;
const MAX_TRANSIENT_FAILURES = 5;

/**
 * Signs in with Forge's device flow, like `forge login`: shows a URL and a code, polls until
 * the user approves in the browser, then writes the CLI's login file (mode 0600, atomically).
 */
export async function login(options: LoginOptions = {}): Promise<LoginResult> {
  const write = options.write ?? ((text: string) => process.stderr.write(text));
  const started = await startLogin({ ...options, write });
  write(
    `\nTo sign in to Forge, open this address in a browser:\n\n  ${started.verificationUri}\n\nand enter the code:\n\n  ${started.userCode}\n\nWaiting for approval (the code expires in ${Math.round(started.expiresInMs / 60_000) || 1} min; Ctrl+C cancels)...\n`,
  );
  return started.result;
}

/** A device login waiting for the person: where they go, the code they enter, and how it ends. */
export interface StartedLogin {
  verificationUri: string;
  userCode: string;
  expiresInMs: number;
  /** The saved login; rejects with a `LoginError` that says what to do. */
  result: Promise<LoginResult>;
  /** Stops polling; `result` rejects, nothing is saved. */
  cancel(): void;
}

/**
 * The login of `login`, once Forge has issued the device code: polling runs in the background.
 * Sign-in from the agent sends the person to `verificationUri` through the client, with the code
 * in the message; `forge-mcp login` prints both.
 */
export async function startLogin(options: LoginOptions = {}): Promise<StartedLogin> {
  const settings = resolveSettings({
    ...(options.apiUrl === undefined ? {} : { apiUrl: options.apiUrl }),
    ...(options.configPath === undefined ? {} : { configPath: options.configPath }),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
  const write = options.write ?? ((text: string) => process.stderr.write(text));
  const upstream = forgeUpstream(settings);
  const cancelled = new AbortController();
  const stop = () => cancelled.abort();
  options.signal?.addEventListener('abort', stop, { once: true });
  const signal = cancelled.signal;
  // Every answer comes back to the device-flow loop below, which knows what each one means.
  const post = async (path: string, body?: unknown) => {
    try {
      return await upstream.request<Record<string, unknown> | undefined>('POST', path, {
        ...(body === undefined ? {} : { json: body }),
        accept: 'any',
        signal,
      });
    } catch (error) {
      if (signal.aborted) throw new LoginError('Login cancelled; nothing was saved.');
      throw new LoginError((error as Error).message);
    }
  };

  let device: z.infer<typeof DeviceCodeSchema>;
  try {
    const started = await post('/auth/device/request');
    if (started.status >= 300) {
      throw new LoginError(`Forge could not start a login (HTTP ${started.status}). Try again in a moment.`);
    }
    const parsed = DeviceCodeSchema.safeParse(started.data);
    if (!parsed.success)
      throw new LoginError('Forge answered the login request with an unexpected response.');
    device = parsed.data;
  } catch (error) {
    options.signal?.removeEventListener('abort', stop);
    throw error;
  }
  const { deviceCode, userCode, verificationUri } = device;
  const expiresInMs = (device.expiresIn ?? 300) * 1000;
  let intervalMs = options.pollIntervalMs ?? (device.interval ?? 5) * 1000;

  const poll = async (): Promise<LoginResult> => {
    const deadline = Date.now() + expiresInMs;
    let transientFailures = 0;
    while (Date.now() < deadline) {
      await sleep(intervalMs, signal).catch(() => {
        throw new LoginError('Login cancelled; nothing was saved.');
      });
      const response = await post('/auth/device/token', { deviceCode }).catch((error: unknown) => {
        if (signal.aborted) throw error;
        transientFailures++;
        if (transientFailures >= MAX_TRANSIENT_FAILURES) throw error;
        return undefined;
      });
      if (!response) continue;
      if (response.status < 300) {
        const token = DeviceTokenSchema.safeParse(response.data);
        if (!token.success)
          throw new LoginError('Forge approved the login but sent an unexpected token response.');
        const config: ForgeConfig = {
          accessToken: token.data.accessToken,
          refreshToken: token.data.refreshToken,
          expiresAt: new Date(Date.now() + ASSUMED_TOKEN_LIFETIME_MS).toISOString(),
          userId: token.data.userId,
          teamId: token.data.teamId,
          user: token.data.user,
        };
        await writeConfig(settings.configPath, config);
        write(
          `Logged in to Forge as ${config.user.email || config.user.displayName || config.userId} (team ${config.teamId}). Saved to ${settings.configPath}\n`,
        );
        return { config, configPath: settings.configPath };
      }
      if (response.status === 400) {
        const body = (response.data ?? {}) as { error?: unknown };
        switch (body.error) {
          case 'authorization_pending':
            continue;
          case 'slow_down':
            intervalMs += options.slowDownMs ?? 5_000;
            continue;
          case 'expired_token':
            throw new LoginError(
              'The login code expired before it was approved. Run `forge-mcp login` again.',
            );
          case 'access_denied':
            throw new LoginError('The login was denied in the browser. Run `forge-mcp login` to try again.');
          default:
            throw new LoginError(
              `Forge refused the login${typeof body.error === 'string' ? ` (${body.error.slice(0, 100)})` : ''}. Run \`forge-mcp login\` to start again.`,
            );
        }
      }
      if (response.status === 429 || response.status >= 500) {
        transientFailures++;
        if (transientFailures >= MAX_TRANSIENT_FAILURES) {
          throw new LoginError(
            `Forge kept failing while waiting for approval (HTTP ${response.status}). Try again later.`,
          );
        }
        if (response.status === 429) intervalMs += options.slowDownMs ?? 5_000;
        continue;
      }
      throw new LoginError(
        `Forge answered the login poll with HTTP ${response.status}. Run \`forge-mcp login\` again.`,
      );
    }
    throw new LoginError('The login code expired before it was approved. Run `forge-mcp login` again.');
  };
  const result = poll().finally(() => options.signal?.removeEventListener('abort', stop));
  // Nobody may be waiting yet when it fails (a cancel before anyone awaits it).
  result.catch(() => {});
  return { verificationUri, userCode, expiresInMs, result, cancel: stop };
}

/** Removes the login file (the same file `forge logout` removes). Returns whether there was one. */
export async function logout(
  options: { configPath?: string; env?: Record<string, string | undefined> } = {},
) {
  const { configPath } = resolveSettings({
    ...(options.configPath === undefined ? {} : { configPath: options.configPath }),
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  return { removed: await removeConfig(configPath), configPath };
}
