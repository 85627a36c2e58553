import { UpstreamGrantError } from '@x/mcp-core';
import { closedPort } from '@x/mcp-core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { connection, ForgeAuth } from './hosted-connection.js';
import { metadata } from './metadata.js';
import { type FakeForge, type FakeForgeOptions, startFakeForge } from './testing/index.js';

// Forge's hosted connection (a linked account) against the fake Forge's device login: what the
// hosted server's /connect/forge page and its refresh rely on.
let fake: FakeForge | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function start(options: FakeForgeOptions = {}): Promise<{ fake: FakeForge; auth: ForgeAuth }> {
  fake = await startFakeForge(options);
  return { fake, auth: new ForgeAuth({ url: fake.url }) };
}

describe('Forge hosted connection', () => {
  it('is what the metadata declares: a linked account of the provider forge, with its local tool', async () => {
    expect(metadata.connection?.kind).toBe('linked-account');
    const loaded = await metadata.connection?.load();
    expect(loaded).toBe(connection);
    expect(connection.provider).toBe(metadata.id);
    expect(connection.url.env).toBe('FORGE_API_URL');
    expect(metadata.localTools).toEqual(['get_repository_context']);
  });

  it('links through the device login: pending, then an approved account with its team', async () => {
    const { fake, auth } = await start({ device: { pendingPolls: 1 } });
    const device = await auth.start();
    expect(device.userCode).toMatch(/\w{4}-\w{4}/);
    expect(await auth.poll(device.deviceCode)).toEqual({ status: 'pending' });
    const approved = await auth.poll(device.deviceCode);
    if (approved.status !== 'approved') throw new Error(`not approved: ${approved.status}`);
    expect(approved.account).toMatchObject({
      accessToken: fake.accessToken,
      refreshToken: fake.refreshToken,
      teamId: fake.teamId,
      forgeUserId: fake.userId,
    });
    expect(connection.credentials(approved.account)).toEqual({
      accessToken: fake.accessToken,
      teamId: fake.teamId,
    });
    const shown = connection.describe(approved.account);
    expect(shown.detail).toBe(`team ${fake.teamId}`);
    expect(shown.fields).toEqual({ email: approved.account.user.email, team: fake.teamId });
  });

  it('reports a denied login as refused, never as linked', async () => {
    const { auth } = await start({ device: { pendingPolls: 0, outcome: 'deny' } });
    const device = await auth.start();
    expect(await auth.poll(device.deviceCode)).toEqual({ status: 'refused', reason: 'access_denied' });
  });

  it('refreshes with the refresh token; a revoked one is an UpstreamGrantError (only a new link helps)', async () => {
    const { fake, auth } = await start();
    const refreshed = await auth.refresh(fake.refreshToken);
    expect(refreshed.accessToken).toBe(fake.accessToken);
    expect(refreshed.expiresAt).toBeGreaterThan(Date.now());
    fake.revokeRefreshToken();
    const refused = await auth.refresh(fake.refreshToken).catch((error: unknown) => error);
    expect(UpstreamGrantError.isInstance(refused)).toBe(true);
    expect((refused as UpstreamGrantError).upstream).toBe('Forge');
  });

  it('an unreachable Forge is a retryable UPSTREAM_UNAVAILABLE, not a refused grant', async () => {
    const auth = new ForgeAuth({ url: `http://127.0.0.1:${await closedPort()}/api` });
    await expect(auth.refresh('any')).rejects.toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      retryable: true,
    });
  });
});
