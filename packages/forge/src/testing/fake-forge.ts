import { randomUUID } from 'node:crypto';
import { type FakeReply, type FakeRequest, startFakeServer } from '@x/mcp-core/testing/fake-server';
import {
  HttpError,
  type Json,
  lengthProblems,
  nestError,
  REASONS,
  validate,
} from './fake-forge/validation.js';
import { defaultMembers, defaultTickets, FAKE_TEAM_ID, FAKE_USER, FAKE_USER_ID } from './fixtures.js';

export interface FakeDeviceFlowOptions {
  /** Seconds between polls the server asks for. Default 5, like Forge. */
  interval?: number;
  /** Seconds the device code lives. Default 300. */
  expiresIn?: number;
  /** Polls answered `authorization_pending` before the outcome. Default 1. */
  pendingPolls?: number;
  /** Polls answered `slow_down` first (Forge does not send it today; RFC 8628 clients must handle it). Default 0. */
  slowDownPolls?: number;
  /**
   * What the user does in the browser. Default `approve` (after `pendingPolls`). `browser`: the
   * code is approved only when a browser enters it at the verification page (`POST /device`
   * with `userCode`), as a person does; polls stay `authorization_pending` until then.
   */
  outcome?: 'approve' | 'deny' | 'expire' | 'browser';
}

export interface FakeForgeOptions {
  teamId?: string;
  userId?: string;
  user?: { email: string; displayName: string };
  /** Tickets in either shape; default: the fixtures (deep-copied, so every fake starts equal). */
  tickets?: Record<string, unknown>[];
  /** The team's members (`GET /teams/:teamId/members`); default: the fake user and one colleague. */
  members?: Record<string, unknown>[];
  /** Delay before every answer, in ms (slow upstream). */
  latencyMs?: number;
  device?: FakeDeviceFlowOptions;
}

/**
 * A request the fake received: `method`, `path` below `/api` (e.g. `/tickets/FOR-1`), `query`,
 * `headers`, the parsed `body` and when it arrived (`at`): the shared record of `@x/mcp-core/testing`.
 */
export type RecordedRequest = FakeRequest;

export interface InjectedFailure {
  /** HTTP status to answer with, e.g. 403, 404, 429, 500, 503. */
  status: number;
  /** How many matching requests fail. Default 1. */
  times?: number;
  method?: string;
  /** Path below `/api` (exact) or a pattern. Default: any request. */
  path?: string | RegExp;
  /** `Retry-After` header value. */
  retryAfter?: string;
  /** Response body; default a NestJS-style error body. A string is sent as is, as HTML (a proxy's or a web app's error page). */
  body?: unknown;
}

export interface FakeForge {
  /** API base including `/api`, e.g. `http://127.0.0.1:40123/api` (what FORGE_API_URL takes). */
  url: string;
  teamId: string;
  userId: string;
  /** The newest valid access token. */
  readonly accessToken: string;
  /** The valid refresh token. */
  readonly refreshToken: string;
  /** Tickets by id, as stored (mutated by writes). */
  tickets: Map<string, Record<string, unknown>>;
  /** Every request received, oldest first. */
  requests: RecordedRequest[];
  /** Answers the next matching request(s) with an error status. */
  failNext(failure: InjectedFailure): void;
  /** The current access token stops working (as when it expires); the refresh token still works. */
  expireAccessToken(): void;
  /** The refresh token stops working too: only a new login helps. */
  revokeRefreshToken(): void;
  setLatency(ms: number): void;
  close(): Promise<void>;
}

const LIFECYCLE: Record<string, number> = {
  draft: 0,
  defined: 1,
  refined: 2,
  approved: 3,
  executing: 4,
  delivered: 5,
};
const BACKEND_STATUSES = ['draft', 'defined', 'refined', 'approved', 'executing', 'delivered', 'archived'];
const MAX_BODY_BYTES = 1024 * 1024;

/**
 * A local Forge backend on 127.0.0.1 (port 0) for tests and `forge-mcp --sandbox`. It follows the
 * real API: the `/api` prefix, bearer tokens and `x-team-id` (401 / 403 as its guards answer),
 * the device flow and token refresh, tickets by id (`aec_…`) or slug, the lifecycle rules of
 * status changes, the DTO validation (including rejecting unknown fields) and NestJS error
 * bodies. Failures and latency can be injected, and every request is recorded.
 */
export async function startFakeForge(options: FakeForgeOptions = {}): Promise<FakeForge> {
  const teamId = options.teamId ?? FAKE_TEAM_ID;
  const userId = options.userId ?? FAKE_USER_ID;
  const user = options.user ?? FAKE_USER;
  const device = options.device ?? {};
  const tickets = new Map<string, Json>();
  for (const ticket of structuredClone(options.tickets ?? defaultTickets())) {
    tickets.set(String(ticket.id), ticket);
  }
  const members = structuredClone(options.members ?? defaultMembers());
  const validAccessTokens = new Set<string>();
  let tokenCounter = 1;
  let accessToken = `fake-access-token-${tokenCounter}`;
  let refreshToken = 'fake-refresh-token-1';
  let refreshRevoked = false;
  validAccessTokens.add(accessToken);
  const deviceCodes = new Map<
    string,
    { userCode: string; polls: number; consumed: boolean; expiresAt: number; approved?: boolean }
  >();

  /** The verification page: a form for the code, and its answer (`outcome: 'browser'`). */
  const verificationPage = (request: RecordedRequest): FakeReply => {
    if (request.method === 'GET') {
      return reply(
        200,
        '<!doctype html><form method="post" action="/device"><input name="userCode"><button>Continue</button></form>',
      );
    }
    if (request.method !== 'POST') return reply(405, 'Method not allowed');
    // A form post or JSON: the parsed body has the field either way.
    const entered = String((request.body as { userCode?: unknown } | undefined)?.userCode ?? '')
      .trim()
      .toUpperCase();
    const record = [...deviceCodes.values()].find(
      (candidate) =>
        candidate.userCode === entered && !candidate.consumed && candidate.expiresAt >= Date.now(),
    );
    if (!record) return reply(400, '<!doctype html><p>That code is not valid or has expired.</p>');
    record.approved = true;
    return reply(200, '<!doctype html><p>Device approved. You can close this tab.</p>');
  };

  const issueTokens = () => {
    tokenCounter++;
    accessToken = `fake-access-token-${tokenCounter}`;
    validAccessTokens.add(accessToken);
    return accessToken;
  };

  const authenticate = (request: RecordedRequest) => {
    const header = request.headers.authorization;
    if (!header?.startsWith('Bearer ')) throw nestError(401, 'No authorization token provided');
    if (!validAccessTokens.has(header.slice('Bearer '.length)))
      throw nestError(401, 'Invalid or expired token');
    const requestedTeam = request.headers['x-team-id'];
    if (requestedTeam && requestedTeam !== teamId) throw nestError(403, 'You are not a member of this team');
  };

  const findTicket = (idOrSlug: string): Json => {
    const ticket = idOrSlug.startsWith('aec_')
      ? tickets.get(idOrSlug)
      : ([...tickets.values()].find((candidate) => candidate.slug === idOrSlug) ?? tickets.get(idOrSlug));
    if (!ticket) throw nestError(404, 'Ticket not found');
    return ticket;
  };

  const touch = (ticket: Json) => {
    ticket.updatedAt = new Date().toISOString();
  };

  const routes = async (request: RecordedRequest): Promise<{ status: number; body: unknown }> => {
    const { method, path } = request;
    if (method === 'POST' && path === '/auth/device/request') {
      const deviceCode = randomUUID();
      const userCode = `${randomUUID().slice(0, 4)}-${randomUUID().slice(0, 4)}`.toUpperCase();
      const expiresIn = device.expiresIn ?? 300;
      deviceCodes.set(deviceCode, {
        userCode,
        polls: 0,
        consumed: false,
        expiresAt: Date.now() + expiresIn * 1000,
      });
      return {
        status: 200,
        body: {
          deviceCode,
          userCode,
          verificationUri: `${origin}/device`,
          expiresIn,
          interval: device.interval ?? 5,
        },
      };
    }
    if (method === 'POST' && path === '/auth/device/token') {
      const body = validate(request.body, { deviceCode: 'string' });
      const record = deviceCodes.get(String(body.deviceCode));
      if (!record) throw new HttpError(400, { error: 'invalid_device_code' });
      if (record.consumed || record.expiresAt < Date.now())
        throw new HttpError(400, { error: 'expired_token' });
      record.polls++;
      const slowDown = device.slowDownPolls ?? 0;
      if (record.polls <= slowDown) throw new HttpError(400, { error: 'slow_down' });
      if (record.polls <= slowDown + (device.pendingPolls ?? 1)) {
        throw new HttpError(400, { error: 'authorization_pending' });
      }
      const outcome = device.outcome ?? 'approve';
      if (outcome === 'browser' && !record.approved)
        throw new HttpError(400, { error: 'authorization_pending' });
      if (outcome === 'deny') throw new HttpError(400, { error: 'access_denied' });
      if (outcome === 'expire') {
        record.consumed = true;
        throw new HttpError(400, { error: 'expired_token' });
      }
      record.consumed = true;
      refreshToken = `fake-refresh-token-${randomUUID().slice(0, 8)}`;
      refreshRevoked = false;
      return {
        status: 200,
        body: { accessToken: issueTokens(), refreshToken, userId, teamId, user },
      };
    }
    if (method === 'POST' && path === '/auth/refresh') {
      const body = validate(request.body, { refreshToken: 'string' });
      if (refreshRevoked || body.refreshToken !== refreshToken) {
        throw nestError(401, 'Session expired. Run `forge login` to re-authenticate.');
      }
      return {
        status: 200,
        body: { accessToken: issueTokens(), expiresAt: new Date(Date.now() + 3_600_000).toISOString() },
      };
    }

    const membersOf = /^\/teams\/([^/]+)\/members$/.exec(path);
    if (membersOf) {
      authenticate(request);
      if (method !== 'GET') throw nestError(404, `Cannot ${method} /api${path}`);
      if (decodeURIComponent(membersOf[1] ?? '') !== teamId)
        throw nestError(403, 'You are not a member of this team');
      return { status: 200, body: { success: true, members } };
    }

    if (path === '/tickets' || path.startsWith('/tickets/')) {
      authenticate(request);
      const [, , rawId, action, ...rest] = path.split('/');
      if (rest.length > 0) throw nestError(404, `Cannot ${method} /api${path}`);
      if (rawId === undefined) {
        if (method !== 'GET') throw nestError(404, `Cannot ${method} /api${path}`);
        const all = [...tickets.values()].filter((ticket) => ticket.status !== 'archived');
        const mine = request.query.assignedToMe === 'true';
        return { status: 200, body: mine ? all.filter((ticket) => ticket.assignedTo === userId) : all };
      }
      const id = decodeURIComponent(rawId);
      if (action === undefined && method === 'GET') {
        return { status: 200, body: { ...findTicket(id), createdByName: user.displayName } };
      }
      if (action === undefined && method === 'PATCH')
        return { status: 200, body: updateTicket(findTicket(id), request.body) };
      if (method === 'POST' && action === 'review-session') {
        const body = validate(request.body, { qaItems: 'qaItems' });
        if ((body.qaItems as unknown[]).length === 0)
          throw nestError(400, ['qaItems must contain at least 1 elements']);
        const ticket = findTicket(id);
        ticket.reviewSession = { qaItems: body.qaItems, submittedAt: new Date().toISOString() };
        ticket.status = 'refined';
        touch(ticket);
        return { status: 201, body: { success: true, ticketId: ticket.id, status: ticket.status } };
      }
      if (method === 'POST' && action === 'start-implementation') {
        const body = validate(request.body, { branchName: 'string', qaItems: 'qaItems?' });
        if (!String(body.branchName).startsWith('forge/'))
          throw nestError(400, ['Branch name must start with forge/']);
        const ticket = findTicket(id);
        if (['draft', 'defined', 'refined'].includes(String(ticket.status)))
          ticket.approvedAt = new Date().toISOString();
        ticket.implementationBranch = body.branchName;
        ticket.status = 'executing';
        touch(ticket);
        return {
          status: 201,
          body: { success: true, ticketId: ticket.id, branchName: body.branchName, status: ticket.status },
        };
      }
      if (method === 'POST' && action === 'execution-events') {
        const body = validate(request.body, { type: 'string', title: 'string', description: 'string' });
        const problems = [
          ...(['decision', 'risk', 'scope_change'].includes(String(body.type))
            ? []
            : ['type must be one of the following values: decision, risk, scope_change']),
          ...lengthProblems(body, { title: 500, description: 10_000 }),
        ];
        if (problems.length > 0) throw nestError(400, problems);
        const ticket = findTicket(id);
        if (ticket.status !== 'executing') {
          throw nestError(
            400,
            `Cannot record execution event in ${ticket.status} status. Ticket must be EXECUTING.`,
          );
        }
        const event = {
          id: `evt_${randomUUID()}`,
          type: body.type,
          title: String(body.title).trim(),
          description: String(body.description).trim(),
          createdAt: new Date().toISOString(),
        };
        const events = Array.isArray(ticket.executionEvents) ? ticket.executionEvents : [];
        ticket.executionEvents = [...events, event];
        touch(ticket);
        return { status: 201, body: { success: true, eventId: event.id, ticketId: ticket.id } };
      }
      if (method === 'POST' && action === 'settle') {
        const body = validate(request.body, {
          executionSummary: 'string',
          filesChanged: 'filesChanged',
          divergences: 'divergences?',
        });
        const problems = lengthProblems(body, { executionSummary: 10_000 });
        if ((body.filesChanged as unknown[]).length > 500)
          problems.push('filesChanged must contain no more than 500 elements');
        if (problems.length > 0) throw nestError(400, problems);
        const ticket = findTicket(id);
        if (ticket.status !== 'executing') {
          throw nestError(400, `Cannot deliver from ${ticket.status}. Ticket must be EXECUTING.`);
        }
        const events = (Array.isArray(ticket.executionEvents) ? ticket.executionEvents : []) as Json[];
        const divergences = (body.divergences as unknown[] | undefined) ?? [];
        ticket.changeRecord = {
          executionSummary: body.executionSummary,
          decisions: events.filter((event) => event.type === 'decision'),
          risks: events.filter((event) => event.type === 'risk'),
          scopeChanges: events.filter((event) => event.type === 'scope_change'),
          filesChanged: body.filesChanged,
          divergences,
          hasDivergence: divergences.length > 0,
          status: 'awaiting_review',
          reviewNote: null,
          reviewedAt: null,
          submittedAt: new Date().toISOString(),
        };
        ticket.status = 'delivered';
        touch(ticket);
        return { status: 201, body: { success: true, ticketId: ticket.id, status: ticket.status } };
      }
    }
    throw nestError(404, `Cannot ${method} /api${path}`);
  };

  const updateTicket = (ticket: Json, rawBody: unknown): Json => {
    const body = validate(rawBody, {
      title: 'string?',
      description: 'string?',
      acceptanceCriteria: 'strings?',
      assumptions: 'strings?',
      status: 'string?',
      techSpec: 'object?',
    });
    if (body.status !== undefined && !BACKEND_STATUSES.includes(String(body.status))) {
      throw nestError(400, [`status must be one of the following values: ${BACKEND_STATUSES.join(', ')}`]);
    }
    for (const key of ['title', 'description', 'acceptanceCriteria', 'assumptions', 'techSpec'] as const) {
      if (body[key] !== undefined) ticket[key] = body[key];
    }
    if (body.status !== undefined && body.status !== ticket.status) {
      const target = String(body.status);
      const current = String(ticket.status);
      const from = LIFECYCLE[current];
      const to = LIFECYCLE[target];
      const refuse = (message: string): never => {
        throw nestError(400, message);
      };
      if (from !== undefined && to !== undefined && to < from) {
        // Sending a ticket back; going back to draft drops its snapshots.
        if (to === 0) {
          ticket.codeSnapshot = null;
          ticket.apiSnapshot = null;
          ticket.readinessScore = 0;
        }
        if (from === 5) ticket.changeRecord = null;
      } else if (target === 'draft') {
        refuse(`Cannot revert to draft from ${current}. Only delivered tickets can be reverted.`);
      } else if (target === 'executing' && current !== 'approved') {
        refuse(`Cannot transition to executing from ${current}. Ticket must be in approved status.`);
      } else if (target === 'delivered' && !['approved', 'executing', 'draft'].includes(current)) {
        refuse(
          `Cannot mark delivered from ${current}. Only draft or executing tickets can be marked delivered.`,
        );
      } else if (target === 'defined' && current !== 'draft') {
        refuse(`Cannot start dev-refine from ${current}`);
      } else if (target === 'archived') {
        refuse('Cannot transition to archived via PATCH. Use the dedicated endpoint.');
      }
      if (target === 'approved') ticket.approvedAt = new Date().toISOString();
      if (target === 'executing') ticket.implementationBranch ??= 'manual';
      ticket.status = target;
    }
    touch(ticket);
    return ticket;
  };

  const server = await startFakeServer({
    basePath: '/api',
    latencyMs: options.latencyMs ?? 0,
    // Like the backend, a request outside `/api` or with a body that is not JSON never reaches a controller.
    record: (request) => request.url.pathname.startsWith('/api/') && (request.text === '' || request.json),
    fallback: async (request) => {
      try {
        if (Buffer.byteLength(request.text) > MAX_BODY_BYTES)
          throw nestError(413, 'request entity too large');
        if (request.url.pathname === '/device') return verificationPage(request);
        if (!request.url.pathname.startsWith('/api/'))
          throw nestError(404, `Cannot ${request.method} ${request.url.pathname}`);
        if (request.text !== '' && !request.json) throw nestError(400, 'Unexpected token in JSON body');
        const result = await routes(request);
        return reply(result.status, result.body);
      } catch (error) {
        if (error instanceof HttpError) return reply(error.status, error.body, error.headers);
        return reply(500, { statusCode: 500, message: 'Internal server error' });
      }
    },
  });
  const origin = server.url;

  return {
    url: `${origin}/api`,
    teamId,
    userId,
    get accessToken() {
      return accessToken;
    },
    get refreshToken() {
      return refreshToken;
    },
    tickets,
    requests: server.requests,
    failNext(failure) {
      const status = failure.status;
      const fallbackBody = {
        statusCode: status,
        message: REASONS[status] ?? 'Error',
        error: REASONS[status] ?? 'Error',
      };
      const answer = reply(
        status,
        failure.body ?? fallbackBody,
        failure.retryAfter === undefined ? {} : { 'retry-after': failure.retryAfter },
      );
      server.fail({
        ...(failure.method === undefined ? {} : { method: failure.method }),
        ...(failure.path === undefined ? {} : { path: failure.path }),
        times: failure.times ?? 1,
        status,
        body: answer.body,
        ...(answer.headers ? { headers: answer.headers } : {}),
      });
    },
    expireAccessToken() {
      validAccessTokens.delete(accessToken);
    },
    revokeRefreshToken() {
      refreshRevoked = true;
    },
    setLatency(ms) {
      server.setLatency(ms);
    },
    close: () => server.close(),
  };
}

/** An answer as Express sends it: JSON, or a string as HTML (a proxy's or a web app's error page). */
function reply(status: number, body: unknown, headers: Record<string, string> = {}): FakeReply {
  const html = typeof body === 'string';
  const text = typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body);
  return {
    status,
    body: text,
    headers: {
      'content-type': html ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(text)),
      'x-powered-by': 'Express',
      ...headers,
    },
  };
}
