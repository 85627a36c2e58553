import { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ConfigError,
  defineTool,
  NotFoundError,
  needsSignIn,
  READ_ONLY,
  SignIn,
  ToolRegistry,
} from '../src/index.js';
import { serveHttp } from '../src/node/index.js';
import { type ConnectedClient, connectHttp, connectInMemory, errorBody } from '../src/testing/index.js';

/**
 * A provider's login, as the sign-in sees it: `signedIn` flips when the person finishes the page
 * (`finish`), or the flow fails (`fail`). `starts` counts the flows started.
 */
function fakeLogin(options: { startFails?: string; progressEveryMs?: number } = {}) {
  const state = { signedIn: false, starts: 0, cancels: 0 };
  let settle: { resolve: () => void; reject: (error: Error) => void } | undefined;
  const signIn = new SignIn({
    id: 'acme',
    ...(options.progressEveryMs === undefined ? {} : { progressEveryMs: options.progressEveryMs }),
    start: async () => {
      if (options.startFails) throw new Error(options.startFails);
      state.starts++;
      const done = new Promise<void>((resolve, reject) => {
        settle = {
          resolve: () => {
            state.signedIn = true;
            resolve();
          },
          reject,
        };
      });
      return {
        url: `https://login.example/authorize?flow=${state.starts}`,
        message: 'Sign in to Acme.',
        done,
        cancel: () => {
          state.cancels++;
          settle?.reject(new Error('Login cancelled; nothing was saved.'));
        },
      };
    },
  });
  return {
    state,
    signIn,
    finish: () => settle?.resolve(),
    fail: (message: string) => settle?.reject(new Error(message)),
  };
}

function registryFor(login: ReturnType<typeof fakeLogin>) {
  const readThing = defineTool({
    name: 'read_thing',
    description: 'Reads a thing from Acme.',
    inputSchema: z.strictObject({ id: z.string().describe('The thing') }),
    annotations: READ_ONLY,
    handler: (input) => {
      if (input.id === 'missing') throw new NotFoundError('No such thing.');
      if (!login.state.signedIn)
        throw needsSignIn(
          new ConfigError('Not logged in to Acme. Run `acme login` in a terminal.'),
          login.signIn,
        );
      return { id: input.id, name: 'The thing' };
    },
  });
  return new ToolRegistry().use({ id: 'acme', version: '1.0.0', tools: [readThing] });
}

type Answer = 'accept' | 'decline' | 'cancel';

function urlClient(
  answer: Answer,
  onAsked: () => void = () => {},
  capabilities: Record<string, unknown> = { elicitation: { url: {} } },
) {
  const asked: Array<Record<string, unknown>> = [];
  const client = new Client({ name: 'sign-in-core-test', version: '0.0.0' }, { capabilities });
  if ('elicitation' in capabilities) {
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params as Record<string, unknown>);
      onAsked();
      return { action: answer };
    });
  }
  return { client, asked };
}

let connection: ConnectedClient | undefined;
afterEach(async () => {
  await connection?.close();
  connection = undefined;
});

const read = (id = 'a1', viaSearch = false) => {
  if (!connection) throw new Error('not connected');
  return viaSearch
    ? connection.client.callTool({ name: 'call_tool', arguments: { name: 'read_thing', arguments: { id } } })
    : connection.client.callTool({ name: 'read_thing', arguments: { id } });
};

describe('sign-in from the agent (core)', () => {
  it.each([
    { how: 'listed tools', search: false, confirm: true },
    { how: 'call_tool on the search surface', search: true, confirm: true },
    { how: '--no-confirm (confirmations off, sign-in still on)', search: false, confirm: false },
  ])('through $how: asks once with the URL, waits, runs the call again', async ({ search, confirm }) => {
    const login = fakeLogin();
    const { client, asked } = urlClient('accept', () => login.finish());
    connection = await connectInMemory(registryFor(login), {
      client,
      ...(search ? { surface: 'search' as const } : {}),
      confirm,
    });
    const result = await read('a1', search);
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.content)).toContain('The thing');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      mode: 'url',
      url: 'https://login.example/authorize?flow=1',
      message: 'Sign in to Acme.',
    });
    expect(login.state.starts).toBe(1);
  });

  it('leaves errors that are not about the login alone', async () => {
    const login = fakeLogin();
    const { client, asked } = urlClient('accept');
    connection = await connectInMemory(registryFor(login), { client });
    expect(errorBody(await read('missing'))).toMatchObject({
      error_code: 'NOT_FOUND',
      message: 'No such thing.',
    });
    expect(asked).toEqual([]);
    expect(login.state.starts).toBe(0);
  });

  it('a flow that fails after the accept: the error as before, with the reason', async () => {
    const login = fakeLogin();
    const { client } = urlClient('accept', () => login.fail('The login was denied in the browser.'));
    connection = await connectInMemory(registryFor(login), { client });
    const body = errorBody(await read());
    expect(body).toMatchObject({ error_code: 'TOOL_NOT_ENABLED', retryable: false });
    expect(body.message).toBe(
      'Not logged in to Acme. Run `acme login` in a terminal. (Sign-in from the agent did not complete: The login was denied in the browser.)',
    );
  });

  it('a flow that cannot start: the error as before, with the reason, nobody asked', async () => {
    const login = fakeLogin({ startFails: 'Port 8765 is busy.' });
    const { client, asked } = urlClient('accept');
    connection = await connectInMemory(registryFor(login), { client });
    const body = errorBody(await read());
    expect(body.message).toBe(
      'Not logged in to Acme. Run `acme login` in a terminal. (Sign-in from the agent could not start: Port 8765 is busy.)',
    );
    expect(asked).toEqual([]);
  });

  it('declined: stops the flow; the next call starts a new one', async () => {
    const login = fakeLogin();
    const first = urlClient('decline');
    connection = await connectInMemory(registryFor(login), { client: first.client });
    expect(errorBody(await read()).message).toContain(
      '(The person declined the sign-in the server offered.)',
    );
    expect(login.state.cancels).toBe(1);
    await connection.close();
    const second = urlClient('accept', () => login.finish());
    connection = await connectInMemory(registryFor(login), { client: second.client });
    expect((await read()).isError).toBeFalsy();
    expect(login.state.starts).toBe(2);
    expect(second.asked[0]?.url).toBe('https://login.example/authorize?flow=2');
  });

  it('a client with form elicitation only is never asked for a sign-in', async () => {
    const login = fakeLogin();
    const { client, asked } = urlClient('accept', () => {}, { elicitation: { form: {} } });
    connection = await connectInMemory(registryFor(login), { client });
    expect(errorBody(await read()).message).toBe('Not logged in to Acme. Run `acme login` in a terminal.');
    expect(asked).toEqual([]);
    expect(login.state.starts).toBe(0);
  });

  it('a 2025-11-25 client over (stateless) HTTP cannot be sent a request: the error as before, nobody asked', async () => {
    const login = fakeLogin();
    const asked: unknown[] = [];
    const client = new Client(
      { name: 'sign-in-core-test', version: '0.0.0' },
      { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: 'legacy' } },
    );
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params);
      return { action: 'accept' };
    });
    const http = await serveHttp({
      name: 'sign-in-core-test',
      version: '0.0.0',
      registry: registryFor(login),
      port: 0,
    });
    try {
      connection = await connectHttp(http.url, { client });
      expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
      expect(errorBody(await read()).message).toBe('Not logged in to Acme. Run `acme login` in a terminal.');
      expect(asked).toEqual([]);
      expect(login.state.starts).toBe(0);
    } finally {
      await connection?.close();
      connection = undefined;
      await http.close();
    }
  });

  it('reports progress while it waits, so a client that resets its timeout on progress keeps waiting', async () => {
    const login = fakeLogin({ progressEveryMs: 20 });
    const { client } = urlClient('accept');
    connection = await connectInMemory(registryFor(login), { client });
    const progress: Array<{ progress: number; message?: string }> = [];
    const result = await client.callTool(
      { name: 'read_thing', arguments: { id: 'a1' } },
      {
        onprogress: (event) => {
          progress.push({ progress: event.progress, ...(event.message ? { message: event.message } : {}) });
          // The person finishes once the client has seen the server is still waiting, twice.
          if (progress.length === 2) login.finish();
        },
      },
    );
    expect(result.isError).toBeFalsy();
    expect(progress.slice(0, 2)).toEqual([
      { progress: 1, message: 'Waiting for the sign-in in the browser' },
      { progress: 2, message: 'Waiting for the sign-in in the browser' },
    ]);
  });

  it('refuses an id that could not be part of an input-request key', () => {
    expect(
      () => new SignIn({ id: 'Acme Corp', start: async () => Promise.reject(new Error('never')) }),
    ).toThrow(TypeError);
  });
});
