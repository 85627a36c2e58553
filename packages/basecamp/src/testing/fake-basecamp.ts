import { type FakeRequest, send, startFakeServer } from '@x/mcp-core/testing/fake-server';
import { createApi } from './fake-basecamp/api.js';
import { createState } from './fake-basecamp/state.js';
import {
  type FakeIdentity,
  FakeLaunchpad,
  type FakeLaunchpadLatency,
  type FakeLaunchpadOptions,
} from './fake-launchpad.js';

export type { FakeIdentity, FakeLaunchpadLatency, FakeLaunchpadOptions } from './fake-launchpad.js';

import { ACCOUNT_ID, type FakeProject, type FakeRecording } from './fixtures.js';

// The fake's parts: fake-launchpad.ts (OAuth, and the tokens), fake-basecamp/api.ts (the bc3 API and
// its JSON shapes), fake-basecamp/state.ts (the API's data). This file wires them to the shared
// fake-server harness.

export interface FakeBasecampOptions {
  /**
   * The server's request budget per window (like Basecamp's "50 requests per 10 s"); beyond it
   * requests get 429 with `Retry-After`. Default: no budget.
   */
  rateLimit?: { requests: number; windowMs: number };
  /** Lifetime of issued access tokens in seconds. Default 1209600 (two weeks, like Launchpad). */
  tokenLifetimeSeconds?: number;
  /** OAuth app the fake Launchpad accepts. */
  client?: { id: string; secret: string };
  /** Which accounts `authorization.json` lists. Default: two bc3 accounts and a non-bc3 one. */
  accounts?: 'one' | 'several';
  /** Launchpad's refresh-token rotation, abuse-tracker ban and latency (see `FakeLaunchpadOptions`). */
  launchpad?: FakeLaunchpadOptions;
}

/**
 * A request the fake received: `method`, `path` (without the query, e.g.
 * `/999999999/projects.json`), `query`, `headers`, the parsed `body` and the `status` the fake
 * answered (the shared record of `@x/mcp-core/testing`).
 */
export type RecordedRequest = FakeRequest;

export interface Fault {
  method?: string;
  /** Matches the path (without query). */
  path: RegExp | string;
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** How many matching requests fail. Default 1. */
  times?: number;
}

export interface FakeBasecamp {
  /** API base (`BASECAMP_API_URL`): the account id follows. */
  url: string;
  /** Launchpad base (`BASECAMP_LAUNCHPAD_URL`). */
  launchpadUrl: string;
  accountId: string;
  /** A valid access token for the account (as if logged in). */
  accessToken: string;
  /** Its refresh token. */
  refreshToken: string;
  client: { id: string; secret: string };
  requests: RecordedRequest[];
  recordings: Map<number, FakeRecording>;
  projects: FakeProject[];
  /** Makes the next matching request(s) fail with this status. */
  fail(fault: Fault): void;
  /** Every access token issued so far stops working (401), as after two weeks. */
  expireAccessTokens(): void;
  /**
   * Refresh tokens stop working too (`invalid_grant`), as after a revoked authorization:
   * everyone's, or only those of the identity with this id.
   */
  revokeRefreshTokens(identityId?: number): void;
  /** Issues a fresh token pair, as a login would. */
  issueTokens(): { accessToken: string; refreshToken: string };
  /** Refresh requests answered so far, and how many failed. */
  refreshes: { succeeded: number; failed: number };
  /** Access tokens revoked with `DELETE /authorization.json`. */
  revoked: string[];
  /** API requests answered 429 so far. */
  rateLimited: number;
  /**
   * Who approves the next `/authorization/new` requests (until changed): the code, its tokens and
   * their refreshes belong to this identity, and `authorization.json` answers with it. Default
   * (or `undefined`): Victor Cooper with the fake's accounts.
   */
  signInAs(identity: FakeIdentity | undefined): void;
  /**
   * A Launchpad session for `identity` as a cookie: a test browser that sends it to
   * `launchpadUrl` signs in as that identity (whatever `signInAs` says), so browsers of
   * different users can sign in at the same time.
   */
  sessionCookie(identity: FakeIdentity): { name: string; value: string };
  /** Changes Launchpad's per-endpoint delays (milliseconds). */
  setLatency(latency: FakeLaunchpadLatency): void;
  /** Whether the abuse tracker bans this app from `address` (default 127.0.0.1) after failed refreshes. */
  launchpadBanned(address?: string): boolean;
  /**
   * The Launchpad token requests recorded so far (`POST /authorization/token`), optionally only
   * refreshes or code exchanges: the request log to count refreshes by.
   */
  tokenRequests(kind?: 'refresh' | 'code'): RecordedRequest[];
  /** The identity an access token was issued to (`undefined`: the default identity or unknown token). */
  identityOf(accessToken: string): FakeIdentity | undefined;
  /** Clears the request log and counters. */
  resetLog(): void;
  close(): Promise<void>;
}

/**
 * A faithful local fake of the bc3 API and of Launchpad on one HTTP server on 127.0.0.1:
 * `/{account_id}/...` flat and `/buckets/{project}/...` routes with the documented JSON shapes,
 * geared pagination (15, 30, 50, 100) with `Link` and `X-Total-Count`, ETag / 304, 429 with
 * `Retry-After` past a request budget, 401 for expired tokens, 404 with `Reason` for an inactive
 * account, 400 without a `User-Agent`, 415 for writes without JSON; and Launchpad's
 * `/authorization/new`, `/authorization/token` and `/authorization.json` for login and refresh.
 */
export async function startFakeBasecamp(options: FakeBasecampOptions = {}): Promise<FakeBasecamp> {
  const client = options.client ?? { id: 'fake-client-id', secret: 'fake-client-secret' };
  const lifetime = options.tokenLifetimeSeconds ?? 1_209_600;
  const launchpad = new FakeLaunchpad(client, lifetime, options.accounts, options.launchpad);
  const accessTokens = launchpad.accessTokens;
  const world = createState(options, launchpad);
  const { recordings, projects } = world;
  const issueTokens = () => launchpad.issueTokens();
  const initial = issueTokens();
  const server = await startFakeServer({
    // Every path is the fake's: Launchpad under `/authorization`, the bc3 API below the account.
    fallback: async (record, response) => {
      const reply = (status: number, body?: unknown, headers: Record<string, string> = {}) => {
        record.status = status;
        send(response, status, body, headers);
      };
      if (record.path.startsWith('/authorization'))
        await launchpad.handle(record, record.url, reply, response);
      else bc3(record, record.url, reply, response);
      return undefined;
    },
  });

  const state: FakeBasecamp = {
    url: server.url,
    launchpadUrl: server.url,
    accountId: ACCOUNT_ID,
    accessToken: initial.accessToken,
    refreshToken: initial.refreshToken,
    client,
    requests: server.requests,
    recordings,
    projects,
    get refreshes() {
      return launchpad.refreshes;
    },
    get revoked() {
      return launchpad.revoked;
    },
    rateLimited: 0,
    fail: (fault) =>
      server.fail({
        ...fault,
        headers: { 'content-type': 'application/json; charset=utf-8', ...fault.headers },
        body: fault.body ?? '',
      }),
    expireAccessTokens: () => launchpad.expireAccessTokens(),
    revokeRefreshTokens: (identityId) => launchpad.revokeRefreshTokens(identityId),
    issueTokens,
    signInAs: (identity) => launchpad.signInAs(identity),
    sessionCookie: (identity) => launchpad.sessionCookie(identity),
    setLatency: (latency) => launchpad.setLatency(latency),
    launchpadBanned: (address) => launchpad.banned(address),
    tokenRequests: (kind) =>
      state.requests.filter((request) => {
        if (request.method !== 'POST' || request.path !== '/authorization/token') return false;
        const form = (request.body ?? {}) as Record<string, string>;
        const refresh = form.grant_type === 'refresh_token' || form.type === 'refresh';
        return kind === undefined || (kind === 'refresh') === refresh;
      }),
    identityOf: (accessToken) => accessTokens.get(accessToken)?.identity,
    resetLog: () => {
      state.requests.length = 0;
      launchpad.resetCounters();
      state.rateLimited = 0;
    },
    close: () => server.close(),
  };
  launchpad.baseUrl = state.url;
  launchpad.onRefreshed = (accessToken) => {
    state.accessToken = accessToken;
  };
  const bc3 = createApi(world, state);
  return state;
}
