// The audit log of one hosted server (in process, a file sink): a real sign-in through the fake
// Launchpad, tool calls that reach the fake Basecamp, a resource read, a revocation; every
// record is checked, the chain verified, and the secrets of the whole flow (the canaries: the
// server's secret, our tokens, the client's secret, the Basecamp tokens) are nowhere in it.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, type Hosted, SECRET, type SignedIn, signIn, startHosted } from '../oauth/fixture.js';
import type { AuditLog } from './audit-log.js';
import { startAudit } from './config.js';
import { tailAudit, verifyAudit } from './read.js';

let env: Hosted;
let audit: AuditLog;
let dir: string;
let path: string;
let alice: SignedIn;

beforeAll(async () => {
  env = await startHosted();
  dir = await mkdtemp(join(tmpdir(), 'audit-e2e-'));
  path = join(dir, 'audit.jsonl');
  audit = await startAudit({
    target: { kind: 'file', path },
    keyring: env.keyring,
    store: env.store,
    connections: env.hosted.connections,
    provider: env.hosted.authorizationServer.provider,
  });
}, 30_000);

afterAll(async () => {
  await alice?.close();
  await audit?.close();
  await env?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the audit log of a hosted server', () => {
  it('records sign-in, calls (with upstream requests and redacted arguments), a resource read and a revocation; verifies; holds no secret', async () => {
    alice = await signIn(env, ALICE, { authMethod: 'client_secret_post' });
    const listed = await alice.client.callTool({ name: 'basecamp_list_projects', arguments: {} });
    expect(listed.isError).toBeFalsy();
    const connection = await env.hosted.connections.get('basecamp:101');
    if (!connection?.refreshToken) throw new Error('alice has no connection with a refresh token');
    const tokens = alice.oauth.tokens() as { access_token: string; refresh_token: string };
    const client = alice.oauth.clientInformation() as { client_id: string; client_secret: string };
    const canaries = [
      SECRET,
      tokens.access_token,
      tokens.refresh_token,
      client.client_secret,
      connection.accessToken,
      connection.refreshToken,
    ];
    for (const canary of canaries) expect(canary?.length).toBeGreaterThan(8);
    const created = await alice.client.callTool({
      name: 'basecamp_create_todo',
      arguments: {
        todolist_id: 424242,
        content: `Rotate ${SECRET} and ${tokens.access_token}`,
        description: connection.refreshToken,
      },
    });
    expect(created.isError).toBe(true);
    await alice.client
      .readResource({ uri: 'basecamp://projects/1/messages/2' })
      .catch((error: unknown) => error);
    const revoked = await fetch(`${env.origin}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        token: tokens.refresh_token,
        token_type_hint: 'refresh_token',
        client_id: client.client_id,
        client_secret: client.client_secret,
      }),
    });
    expect(revoked.status).toBe(200);
    await audit.flush();

    const records = await tailAudit({ kind: 'file', path }, { limit: 100 });
    const user = { id: 'basecamp:101', email: 'alice@example.com' };
    const theClient = { id: client.client_id, name: 'Test client' };
    expect(records.map((record) => `${record.event} ${record.name ?? ''}`.trim())).toEqual([
      'sign-in',
      'tools/call basecamp_list_projects',
      'tools/call basecamp_create_todo',
      'resources/read basecamp_message',
      'revoke',
    ]);
    const [signedIn, list, create, read, revoke] = records as [
      Record<string, unknown>,
      Record<string, unknown>,
      Record<string, unknown>,
      Record<string, unknown>,
      Record<string, unknown>,
    ];
    expect(signedIn).toMatchObject({
      outcome: 'ok',
      user,
      client: theClient,
      scope: expect.stringMatching(/^mcp\b/),
    });
    expect(list).toMatchObject({
      outcome: 'ok',
      user,
      client: theClient,
      request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      upstream: { requests: expect.any(Number), services: { Basecamp: expect.any(Number) } },
      args: {},
    });
    expect((list.upstream as { requests: number }).requests).toBeGreaterThan(0);
    expect(typeof list.duration_ms).toBe('number');
    expect(create).toMatchObject({
      outcome: expect.stringMatching(/^[A-Z_]+$/),
      args: {
        todolist_id: 424242,
        content: {
          text_length: `Rotate ${SECRET} and ${tokens.access_token}`.length,
          text_hmac: expect.any(String),
        },
        description: { text_length: connection.refreshToken.length },
      },
    });
    expect(read).toMatchObject({ user, args: { project_id: '1', message_id: '2' } });
    expect(revoke).toMatchObject({ outcome: 'ok', user, client: theClient, reason: 'revoked by the client' });

    const text = await readFile(path, 'utf8');
    for (const canary of canaries) expect(text).not.toContain(canary);
    expect(await verifyAudit({ kind: 'file', path })).toMatchObject({ ok: true, records: 5 });
  });
});
