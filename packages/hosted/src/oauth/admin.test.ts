import { Launchpad } from '@x/mcp-basecamp/connection';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listUsers, revokeUser } from './admin.js';
import { ALICE, BOB, type Hosted, postToolsList, signIn, startHosted } from './fixture.js';

let env: Hosted;
beforeAll(async () => {
  env = await startHosted();
});
afterAll(() => env.close());

const mcp = (token: string) => postToolsList(env.url, token);

describe('admin: users list and revoke', () => {
  it('lists who signed in, and revokes one user everywhere at once', async () => {
    const alice = await signIn(env, ALICE);
    const bob = await signIn(env, BOB);
    await alice.close();
    await bob.close();
    const aliceTokens = alice.oauth.tokens() as { access_token: string; refresh_token: string };
    const bobTokens = bob.oauth.tokens() as { access_token: string };
    const basecampToken = (await env.hosted.connections.get('basecamp:101'))?.accessToken as string;

    const users = await listUsers(env.store, env.keyring);
    expect(users.map((user) => [user.user, user.email, user.status, user.grants])).toEqual([
      ['basecamp:101', 'alice@example.com', 'active', 1],
      ['basecamp:202', 'bob@example.com', 'active', 1],
    ]);
    expect(JSON.stringify(users)).not.toContain(basecampToken);

    const launchpad = new Launchpad({
      clientId: env.fake.client.id,
      clientSecret: env.fake.client.secret,
      url: env.fake.launchpadUrl,
      redirectUri: `${env.origin}/oauth/callback/basecamp`,
    });
    expect(
      await revokeUser(env.store, env.keyring, 'basecamp:101', { signIn: launchpad, linked: ['forge'] }),
    ).toEqual({
      grants: 1,
      connection: true,
      upstream: true,
      forge: false,
    });
    expect((await mcp(aliceTokens.access_token)).status).toBe(401);
    const refresh = await fetch(new URL('/token', env.origin), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: alice.oauth.clientInformation()?.client_id as string,
        refresh_token: aliceTokens.refresh_token,
      }),
    });
    expect(refresh.status).toBe(400);
    expect(env.fake.revoked).toContain(basecampToken);
    // Bob is untouched.
    expect((await mcp(bobTokens.access_token)).status).toBe(200);
    expect((await listUsers(env.store, env.keyring)).map((user) => [user.user, user.status])).toEqual([
      ['basecamp:101', 'revoked'],
      ['basecamp:202', 'active'],
    ]);
  });
});
