import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connection as basecampConnection } from '@x/mcp-basecamp/connection';
import { type FakeBasecamp, startFakeBasecamp } from '@x/mcp-basecamp/testing';
import type { UpstreamIdentity } from '@x/mcp-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keyring } from '../../crypto.js';
import { MemoryStore } from '../../store/memory.js';
import { sha256 } from '../browser.js';
import { Connections } from '../connections.js';
import { quiet, SECRET } from '../fixture.js';
import { type AuthServerContext, authServerSettings } from './context.js';
import { type InteractionTicket, type PendingLogin, pendingKey } from './records.js';
import { admitAccounts, createUpstreamCallback } from './upstream-callback.js';

const identity: UpstreamIdentity = {
  id: '101',
  name: 'Alice Arnold',
  email: 'alice@Example.com',
  accounts: [
    { id: '1', name: 'One' },
    { id: '2', name: 'Two' },
  ],
};

describe('which accounts a sign-in is admitted with', () => {
  it('keeps the allowed accounts, all of them when the allowlist is empty', () => {
    expect(admitAccounts({}, 'u', identity)).toEqual({ accounts: identity.accounts });
    expect(admitAccounts({ allowedAccounts: ['2', '3'] }, 'u', identity)).toEqual({
      accounts: [{ id: '2', name: 'Two' }],
    });
    expect(admitAccounts({ allowedAccounts: ['3'] }, 'u', identity)).toEqual({ refused: 'none' });
  });

  it('refuses every account when the email domain is not allowed (case-insensitive), and says so', () => {
    expect(admitAccounts({ allowedEmailDomains: ['EXAMPLE.com'] }, 'u', identity)).toEqual({
      accounts: identity.accounts,
    });
    expect(admitAccounts({ allowedEmailDomains: ['example.org'] }, 'u', identity)).toEqual({
      refused: 'none',
      emailDomain: 'example.com',
    });
  });

  it('drops the accounts the policy refuses, and refuses with its sentence when it refuses them all', () => {
    const asked: unknown[] = [];
    const oneOnly = admitAccounts(
      {
        signInRefusal: (who) => {
          asked.push(who);
          return who.accountId === '1' ? 'Not on account One.' : undefined;
        },
      },
      'basecamp:101',
      identity,
    );
    expect(oneOnly).toEqual({ accounts: [{ id: '2', name: 'Two' }] });
    expect(asked).toEqual([
      { userId: 'basecamp:101', email: 'alice@Example.com', accountId: '1' },
      { userId: 'basecamp:101', email: 'alice@Example.com', accountId: '2' },
    ]);
    expect(admitAccounts({ signInRefusal: () => 'Nobody today.' }, 'u', identity)).toEqual({
      refused: 'policy',
      reason: 'Nobody today.',
    });
    // The policy is not asked about accounts the allowlist already dropped.
    expect(
      admitAccounts({ allowedAccounts: ['9'], signInRefusal: () => 'Nobody today.' }, 'u', identity),
    ).toEqual({ refused: 'none' });
  });
});

describe('the upstream callback route', () => {
  let fake: FakeBasecamp;
  let server: Server;
  let origin: string;
  let context: AuthServerContext;
  const callbackPath = `/oauth/callback/${basecampConnection.provider}`;

  beforeAll(async () => {
    fake = await startFakeBasecamp();
    const store = new MemoryStore();
    const keyring = Keyring.fromSecrets({ secret: SECRET });
    const signIn = basecampConnection.client({
      clientId: fake.client.id,
      clientSecret: fake.client.secret,
      url: fake.launchpadUrl,
      redirectUri: `http://127.0.0.1${callbackPath}`,
    });
    const settings = authServerSettings({
      issuer: 'http://127.0.0.1',
      resource: 'http://127.0.0.1/mcp',
      store,
      keyring,
      signIn,
      connections: new Connections(store, keyring, signIn, { logger: quiet }),
      logger: quiet,
    });
    context = {
      ...settings,
      get provider(): never {
        throw new Error('the callback does not use oidc-provider');
      },
    };
    const callback = createUpstreamCallback(context, {});
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      callback(req, res, url).catch((error: unknown) => {
        res.writeHead(500);
        res.end(String(error));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await fake.close();
  });

  /** A consented sign-in waiting for the upstream: its state, and the browser's binding cookie. */
  const pending = async (uid: string) => {
    const state = `state-${uid}`;
    const binding = `binding-${uid}`;
    await context.sealed.set(
      pendingKey(state),
      { uid, clientId: 'client-1', binding: sha256(binding) } satisfies PendingLogin,
      { ttlMs: 60_000 },
    );
    return { state, cookie: `${context.bindingCookie}=${binding}` };
  };
  const call = (query: Record<string, string>, cookie?: string, method = 'GET') =>
    fetch(`${origin}${callbackPath}?${new URLSearchParams(query)}`, {
      method,
      redirect: 'manual',
      ...(cookie ? { headers: { cookie } } : {}),
    });

  it('refuses an answer without state, or not a GET', async () => {
    expect((await call({ code: 'c' })).status).toBe(400);
    const { state, cookie } = await pending('uid-post');
    const post = await call({ state }, cookie, 'POST');
    expect(post.status).toBe(400);
    expect(await post.text()).toContain('The sign-in answer has no state.');
  });

  it('refuses an unknown state, a state from another browser, and the same state again', async () => {
    const unknown = await call({ state: 'forged', code: 'c' }, `${context.bindingCookie}=x`);
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('Unknown, expired or foreign sign-in state');
    const { state, cookie } = await pending('uid-foreign');
    // Another browser: its own binding cookie, or none.
    expect((await call({ state, code: 'c' }, `${context.bindingCookie}=someone-else`)).status).toBe(400);
    // That attempt spent the state: the right browser cannot use it now.
    expect((await call({ state, code: 'c' }, cookie)).status).toBe(400);
    const second = await pending('uid-none');
    expect((await call({ state: second.state, code: 'c' })).status).toBe(400);
    expect((await call({ state: second.state, code: 'c' }, second.cookie)).status).toBe(400);
  });

  it('sends a cancelled sign-in back into its interaction with access_denied, clearing the cookie', async () => {
    const { state, cookie } = await pending('uid-cancel');
    const answer = await call({ state, error: 'access_denied' }, cookie);
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/interaction/uid-cancel/done');
    expect(answer.headers.get('set-cookie')).toBe(
      `${context.bindingCookie}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`,
    );
    const ticket = await context.sealed.consume<InteractionTicket>('ticket:uid-cancel');
    expect(ticket).toEqual({
      error: 'access_denied',
      description: `${context.upstream} sign-in was cancelled.`,
    });
    // Used once: replayed, it is refused.
    expect((await call({ state, error: 'access_denied' }, cookie)).status).toBe(400);
  });

  it('answers 502 when the upstream refuses the code, keeping no ticket', async () => {
    const { state, cookie } = await pending('uid-badcode');
    const answer = await call({ state, code: 'not-a-code-the-upstream-gave' }, cookie);
    expect(answer.status).toBe(502);
    expect(await context.sealed.get('ticket:uid-badcode')).toBeUndefined();
  });
});
