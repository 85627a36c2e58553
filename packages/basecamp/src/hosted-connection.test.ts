import { UpstreamGrantError } from '@x/mcp-core';
import { closedPort } from '@x/mcp-core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { connection, type Launchpad } from './hosted-connection.js';
import { metadata } from './metadata.js';
import { type FakeBasecamp, startFakeBasecamp } from './testing/index.js';

// Basecamp's hosted connection (a sign-in that is the identity) against the fake Launchpad:
// what the hosted server's sign-in and refresh rely on.
let fake: FakeBasecamp | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function start(): Promise<{ fake: FakeBasecamp; launchpad: Launchpad }> {
  fake = await startFakeBasecamp();
  const launchpad = connection.client({
    clientId: fake.client.id,
    clientSecret: fake.client.secret,
    url: fake.launchpadUrl,
    redirectUri: 'http://127.0.0.1:9/oauth/callback/basecamp',
  }) as Launchpad;
  return { fake, launchpad };
}

describe('Basecamp hosted connection', () => {
  it('is what the metadata declares: a sign-in of the provider basecamp, with the Launchpad ban budget', async () => {
    expect(metadata.connection?.kind).toBe('sign-in');
    expect(await metadata.connection?.load()).toBe(connection);
    expect(connection.provider).toBe(metadata.id);
    expect(connection.refreshBudget).toMatchObject({
      key: 'budget:launchpad:invalid_grant',
      windowMs: 48 * 3600_000,
      threshold: 3,
    });
    const { launchpad } = await start();
    expect(launchpad.connection).toBe(connection);
  });

  it('identifies the login with only its Basecamp 3/4 accounts (not Basecamp 2)', async () => {
    const { fake, launchpad } = await start();
    const { accessToken } = fake.issueTokens();
    const all = await launchpad.identity(accessToken);
    expect(all.accounts.map((account) => account.product)).toContain('bcx');
    const identity = await launchpad.identify(accessToken);
    expect(identity.accounts.length).toBeGreaterThan(0);
    expect(identity.accounts).toEqual(
      all.accounts.filter((account) => account.product === 'bc3').map(({ id, name }) => ({ id, name })),
    );
  });

  it('refreshes; a revoked refresh token is an UpstreamGrantError naming Launchpad', async () => {
    const { fake, launchpad } = await start();
    const { refreshToken } = fake.issueTokens();
    const refreshed = await launchpad.refresh(refreshToken);
    expect(refreshed.expiresAt).toBeGreaterThan(Date.now());
    fake.revokeRefreshTokens();
    const refused = await launchpad
      .refresh(refreshed.refreshToken ?? refreshToken)
      .catch((error: unknown) => error);
    expect(UpstreamGrantError.isInstance(refused)).toBe(true);
    expect((refused as UpstreamGrantError).upstream).toBe('Launchpad');
    expect((refused as Error).message).not.toContain(refreshToken);
  });

  it('an unreachable Launchpad is a retryable UPSTREAM_UNAVAILABLE, not a refused grant', async () => {
    const launchpad = connection.client({
      clientId: 'id',
      clientSecret: 'secret',
      url: `http://127.0.0.1:${await closedPort()}`,
      redirectUri: '',
    });
    await expect(launchpad.refresh('any')).rejects.toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      retryable: true,
    });
  });
});
