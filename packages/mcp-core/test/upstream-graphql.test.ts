import { afterEach, describe, expect, it } from 'vitest';
import { McpToolError } from '../src/index.js';
import { type FakeServer, type FakeServerOptions, startFakeServer } from '../src/testing/index.js';
import {
  type CredentialSource,
  createUpstreamClient,
  graphqlErrorReader,
  type UpstreamClientOptions,
  type UpstreamFailure,
} from '../src/upstream/index.js';

// GraphQL and JSON-RPC upstreams against a real HTTP fake on 127.0.0.1. The error bodies are the
// shapes the services document: Apollo's `extensions.code`, GitHub's top-level `type` (and its
// REST-style 401 `{ message }`), Linear's `extensions.code`/`type` and `userPresentableMessage`.

let fake: FakeServer | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function start(options: FakeServerOptions): Promise<FakeServer> {
  fake = await startFakeServer(options);
  return fake;
}

async function failure(promise: Promise<unknown>): Promise<McpToolError> {
  try {
    await promise;
  } catch (error) {
    if (McpToolError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

const issues = { data: { issues: { nodes: [{ id: 'ISS-1', title: 'First' }] } } };

/** A GraphQL endpoint with two operations: `Issues` (a query) and `IssueCreate` (a mutation). */
const graphql: FakeServerOptions = {
  routes: [
    { method: 'POST', path: '/graphql', operation: 'Issues', handle: () => ({ status: 200, body: issues }) },
    {
      method: 'POST',
      path: '/graphql',
      operation: 'IssueCreate',
      handle: () => ({ status: 200, body: { data: { issueCreate: { success: true } } } }),
    },
  ],
};

const client = (url: string, extra: Partial<UpstreamClientOptions> = {}) =>
  createUpstreamClient({
    name: 'Tracker',
    baseUrl: url,
    urlSetting: 'TRACKER_API_URL',
    retry: { baseDelayMs: 1, maxDelayMs: 20 },
    errorReader: graphqlErrorReader(),
    ...extra,
  });

const query = (operationName: string) => ({
  json: { query: `query ${operationName} { issues { nodes { id title } } }`, operationName },
});

const errorsBody = (error: Record<string, unknown>, data: unknown = null) => ({ data, errors: [error] });

describe('safeToRetry: a read sent as POST is retried like a GET', () => {
  it('retries a GraphQL query after a 502 and a lost connection, without an Idempotency-Key', async () => {
    const server = await start(graphql);
    server.fail({ operation: 'Issues', status: 502 });
    server.fail({ operation: 'Issues', reset: true });
    const upstream = client(server.url);
    const answer = await upstream.request('POST', '/graphql', { ...query('Issues'), safeToRetry: true });
    expect(answer.data).toEqual(issues);
    expect(server.requests.map((request) => request.status)).toEqual([502, 0, 200]);
    expect(server.requests.every((request) => request.headers['idempotency-key'] === undefined)).toBe(true);
    expect(upstream.stats.retries).toBe(2);
  });

  it('does not retry the same POST without the flag (a mutation): the 502 is the answer', async () => {
    const server = await start(graphql);
    server.fail({ operation: 'IssueCreate', status: 502 });
    const error = await failure(
      client(server.url).request('POST', '/graphql', {
        json: { query: 'mutation IssueCreate { issueCreate { success } }' },
      }),
    );
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(server.requests).toHaveLength(1);
  });

  it('retries a JSON-RPC read after a 503, and stops at the retry limit', async () => {
    const server = await start({
      routes: [
        {
          path: '/rpc',
          operation: 'eth_blockNumber',
          handle: (request) => ({
            status: 200,
            body: { jsonrpc: '2.0', id: (request.body as { id: number }).id, result: '0x10' },
          }),
        },
      ],
    });
    server.fail({ operation: 'eth_blockNumber', status: 503, times: 5 });
    const upstream = client(server.url, { errorReader: undefined, retry: { maxRetries: 2, baseDelayMs: 1 } });
    const body = { json: { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber' }, safeToRetry: true };
    const error = await failure(upstream.request('POST', '/rpc', body));
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(server.requests).toHaveLength(3);
    server.clearFaults();
    expect((await upstream.request('POST', '/rpc', body)).data).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: '0x10',
    });
  });
});

describe('graphqlErrorReader: errors inside a 200 are failures like the statuses they stand for', () => {
  it.each([
    [{ message: 'Not allowed', extensions: { code: 'FORBIDDEN' } }, 'PERMISSION_DENIED', 'FORBIDDEN'],
    [
      {
        type: 'NOT_FOUND',
        path: ['repository'],
        message: "Could not resolve to a Repository with the name 'a/b'.",
      },
      'NOT_FOUND',
      'NOT_FOUND',
    ],
    [
      { message: 'Variable "$id" got invalid value', extensions: { code: 'BAD_USER_INPUT' } },
      'INVALID_INPUT',
      'BAD_USER_INPUT',
    ],
    [
      {
        message: 'Entity not found',
        extensions: { type: 'invalid input', userPresentableMessage: 'No such team.' },
      },
      'INVALID_INPUT',
      'INVALID_INPUT',
    ],
    [{ message: 'Something odd' }, 'UPSTREAM_ERROR', undefined],
    [{ message: 'Odd too', extensions: { code: 'SOMETHING_NEW' } }, 'UPSTREAM_ERROR', 'SOMETHING_NEW'],
  ])('maps %j to %s', async (error, code, upstreamCode) => {
    const server = await start(graphql);
    server.fail({ operation: 'Issues', status: 200, body: errorsBody(error) });
    const thrown = await failure(client(server.url).request('POST', '/graphql', query('Issues')));
    expect(thrown.code).toBe(code);
    expect(thrown.details.upstream_code).toBe(upstreamCode);
    const said = (error as { extensions?: { userPresentableMessage?: string } }).extensions
      ?.userPresentableMessage;
    expect(thrown.message).toContain(`Tracker said: "${said ?? error.message}"`);
    expect(server.requests).toHaveLength(1);
  });

  it('names the code, not a status the upstream never sent, and keeps the HTTP status in the details', async () => {
    const server = await start(graphql);
    server.fail({
      operation: 'Issues',
      status: 200,
      body: errorsBody({ message: 'Resource protected by SAML enforcement.', type: 'FORBIDDEN' }),
    });
    const error = await failure(client(server.url).request('POST', '/graphql', query('Issues')));
    expect(error.message).toBe(
      'Tracker refused POST /graphql (FORBIDDEN): your account is not allowed to do this. Tracker said: "Resource protected by SAML enforcement."',
    );
    expect(error.details).toMatchObject({ status: 403, http_status: 200, upstream_code: 'FORBIDDEN' });
  });

  it('renews the credentials on UNAUTHENTICATED in a 200, and reports TOKEN_EXPIRED when the new ones fail too', async () => {
    let valid = 'fresh-token-22';
    const server = await start({
      routes: [
        {
          path: '/graphql',
          handle: (request) =>
            request.headers.authorization === `Bearer ${valid}`
              ? { status: 200, body: issues }
              : {
                  status: 200,
                  body: errorsBody({
                    message: 'Authentication required',
                    extensions: { code: 'UNAUTHENTICATED' },
                  }),
                },
        },
      ],
    });
    const renewed: string[] = [];
    const source: CredentialSource<string> = {
      current: async () => 'old-token-11',
      renew: async (rejected) => {
        renewed.push(rejected);
        return 'fresh-token-22';
      },
    };
    const upstream = createUpstreamClient<string>({
      name: 'Tracker',
      baseUrl: server.url,
      urlSetting: 'TRACKER_API_URL',
      errorReader: graphqlErrorReader(),
      auth: { source, headers: (token) => ({ authorization: `Bearer ${token}` }) },
    });
    const answer = await upstream.request('POST', '/graphql', query('Issues'));
    expect(answer.data).toEqual(issues);
    expect(answer.credentials).toBe('fresh-token-22');
    expect(renewed).toEqual(['old-token-11']);
    valid = 'nobody';
    const error = await failure(upstream.request('POST', '/graphql', query('Issues')));
    expect(error.code).toBe('TOKEN_EXPIRED');
  });

  it('waits out RATE_LIMITED in a 200 like a 429 (on a mutation too), then answers', async () => {
    const server = await start(graphql);
    server.fail({
      operation: 'IssueCreate',
      status: 200,
      headers: { 'retry-after': '0' },
      body: errorsBody({ type: 'RATE_LIMITED', message: 'API rate limit exceeded for user ID 1.' }),
    });
    const upstream = client(server.url);
    const answer = await upstream.request('POST', '/graphql', {
      json: { query: 'mutation IssueCreate { issueCreate { success } }' },
    });
    expect(answer.data).toEqual({ data: { issueCreate: { success: true } } });
    expect(upstream.stats).toEqual({ requests: 2, rateLimited: 1, retries: 1 });
  });

  it("reads a status behind another one: Linear's RATELIMITED in a 400 is RATE_LIMITED, not INVALID_INPUT", async () => {
    const server = await start(graphql);
    server.fail({
      operation: 'Issues',
      status: 400,
      times: Number.POSITIVE_INFINITY,
      headers: { 'retry-after': '90' },
      body: errorsBody({
        message: 'Rate limit exceeded',
        extensions: { code: 'RATELIMITED', type: 'ratelimited' },
      }),
    });
    const error = await failure(client(server.url).request('POST', '/graphql', query('Issues')));
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.details).toMatchObject({
      status: 429,
      http_status: 400,
      upstream_code: 'RATELIMITED',
      retry_after_ms: 90_000,
    });
    expect(server.requests).toHaveLength(1);
  });

  it('retries INTERNAL_SERVER_ERROR in a 200 only when the request is safe to retry', async () => {
    const server = await start(graphql);
    const internal = errorsBody({
      message: 'Something went wrong',
      extensions: { code: 'INTERNAL_SERVER_ERROR' },
    });
    server.fail({ operation: 'Issues', status: 200, body: internal });
    const read = await client(server.url).request('POST', '/graphql', {
      ...query('Issues'),
      safeToRetry: true,
    });
    expect(read.data).toEqual(issues);
    server.fail({ operation: 'IssueCreate', status: 200, body: internal });
    const write = await failure(
      client(server.url).request('POST', '/graphql', { json: { query: 'mutation IssueCreate { x }' } }),
    );
    expect(write.code).toBe('UPSTREAM_ERROR');
    expect(write.retryable).toBe(true);
    expect(server.requests.map((request) => request.operation)).toEqual(['Issues', 'Issues', 'IssueCreate']);
  });

  it('takes partial data as a success only when asked to', async () => {
    const partial = errorsBody(
      { type: 'NOT_FOUND', path: ['b'], message: 'Could not resolve b.' },
      { a: { id: 1 }, b: null },
    );
    const server = await start({
      routes: [{ path: '/graphql', handle: () => ({ status: 200, body: partial }) }],
    });
    const strict = await failure(client(server.url).request('POST', '/graphql', query('Two')));
    expect(strict.code).toBe('NOT_FOUND');
    const lenient = client(server.url, { errorReader: graphqlErrorReader({ partialData: true }) });
    expect((await lenient.request('POST', '/graphql', query('Two'))).data).toEqual(partial);
  });

  it("leaves a non-2xx without errors to the default reading (GitHub's 401 { message })", async () => {
    const server = await start({
      routes: [
        { path: '/graphql', handle: () => ({ status: 403, body: { message: 'Must have admin rights' } }) },
      ],
    });
    const error = await failure(client(server.url).request('POST', '/graphql', query('Issues')));
    expect(error.code).toBe('PERMISSION_DENIED');
    expect(error.message).toBe(
      'Tracker refused POST /graphql (403): your account is not allowed to do this. Tracker said: "Must have admin rights"',
    );
    expect(error.details).toEqual({ status: 403 });
  });

  it('redacts secrets an error message echoes, and joins distinct messages', async () => {
    const server = await start(graphql);
    server.fail({
      operation: 'Issues',
      status: 200,
      body: {
        data: null,
        errors: [
          {
            message: 'Bad header Authorization: Bearer lin_api_0123456789abcdef',
            extensions: { code: 'BAD_USER_INPUT' },
          },
          { message: 'Bad header Authorization: Bearer lin_api_0123456789abcdef' },
          { message: 'Second problem' },
        ],
      },
    });
    const error = await failure(client(server.url).request('POST', '/graphql', query('Issues')));
    expect(error.details.upstream_message).toBe(
      'Bad header Authorization: Bearer [redacted]; Second problem',
    );
    expect(JSON.stringify(error)).not.toContain('lin_api_0123456789abcdef');
  });

  it('passes the code and both statuses to the provider status map', async () => {
    const server = await start(graphql);
    server.fail({
      operation: 'Issues',
      status: 200,
      body: errorsBody({ message: 'gone', extensions: { code: 'NOT_FOUND' } }),
    });
    const seen: UpstreamFailure[] = [];
    const upstream = client(server.url, {
      statusError: (failed) => {
        seen.push(failed);
        return failed.code === 'NOT_FOUND'
          ? new McpToolError('NOT_FOUND', 'Issue ISS-9 not found. Use list_issues.')
          : undefined;
      },
    });
    const error = await failure(upstream.request('POST', '/graphql', query('Issues')));
    expect(error.message).toBe('Issue ISS-9 not found. Use list_issues.');
    expect(seen[0]).toMatchObject({ status: 404, httpStatus: 200, code: 'NOT_FOUND', message: 'gone' });
  });

  it('without a reader, a 200 with errors is a success as before', async () => {
    const server = await start(graphql);
    const body = errorsBody({ message: 'Not allowed', extensions: { code: 'FORBIDDEN' } });
    server.fail({ operation: 'Issues', status: 200, body });
    const answer = await client(server.url, { errorReader: undefined }).request(
      'POST',
      '/graphql',
      query('Issues'),
    );
    expect(answer.data).toEqual(body);
  });

  it('lets one call use its own reader, and an accepted status skips the reader', async () => {
    const server = await start(graphql);
    const body = errorsBody({ message: 'Not allowed', extensions: { code: 'FORBIDDEN' } });
    server.fail({ operation: 'Issues', status: 200, body, times: 2 });
    const plain = client(server.url, { errorReader: undefined });
    const error = await failure(
      plain.request('POST', '/graphql', { ...query('Issues'), errorReader: graphqlErrorReader() }),
    );
    expect(error.code).toBe('PERMISSION_DENIED');
    const accepted = await client(server.url).request('POST', '/graphql', {
      ...query('Issues'),
      accept: [200],
    });
    expect(accepted.data).toEqual(body);
  });
});
