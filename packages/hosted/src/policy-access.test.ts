import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuthInfo } from '@modelcontextprotocol/server';
import type { ToolAccess } from '@x/mcp-core';
import type { HttpAuth } from '@x/mcp-core/node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from './errors.js';
import type { PolicyIdentity } from './policy.js';
import { Governance, governedAuth } from './policy-access.js';
import { PolicyFile } from './policy-file.js';
import { MemoryTokenBuckets, type Rate, readRate } from './rate-limit.js';

const POLICY = JSON.stringify({
  rules: [
    { match: { email: 'ana@example.com' }, readOnly: true, toolsets: ['basecamp.todos'], name: 'interns' },
    { match: { domain: 'contractor.example' }, projects: [1001], rateLimit: '2/h' },
    { match: { email: 'admin@example.com' }, rateLimit: 'off' },
    { match: { email: 'gone@example.com' }, deny: true },
  ],
});

const PEOPLE: Record<string, PolicyIdentity> = {
  'basecamp:1': { email: 'ana@example.com', accountId: '999' },
  'basecamp:2': { email: 'cy@contractor.example', accountId: '999' },
  'basecamp:3': { email: 'admin@example.com', accountId: '999' },
  'basecamp:4': { email: 'gone@example.com', accountId: '999' },
  'basecamp:5': { email: 'bo@example.com', accountId: '999' },
};

let dir: string;
let policy: PolicyFile;
let lookups: string[];
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'policy-access-'));
  await writeFile(join(dir, 'policy.json'), POLICY);
  policy = await PolicyFile.open(join(dir, 'policy.json'));
  lookups = [];
});
afterEach(async () => {
  policy.close();
  await rm(dir, { recursive: true, force: true });
});

const caller = (userId: string): AuthInfo => ({
  token: 't',
  clientId: 'c',
  scopes: ['mcp'],
  extra: { userId, grantId: 'g' },
});

function governance(options: { rateLimit?: Rate; withPolicy?: boolean; failing?: boolean } = {}) {
  return new Governance({
    ...(options.withPolicy === false ? {} : { policy }),
    ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
    buckets: new MemoryTokenBuckets({ now: () => 0 }),
    identity: async (userId) => {
      lookups.push(userId);
      if (options.failing) throw new StoreUnavailableError('The redis store at x is unavailable.');
      return PEOPLE[userId];
    },
  });
}

describe('Governance', () => {
  it('narrows each request by the person’s rule, once per request', async () => {
    const governed = governance({ rateLimit: readRate('100/min') as Rate });
    const info = caller('basecamp:1');
    const ana = await governed.for(info);
    await governed.for(info);
    expect(lookups).toEqual(['basecamp:1']);
    expect(ana.accesses).toHaveLength(1);
    expect(ana.accesses[0]).toMatchObject({
      source: 'the server\'s policy (rule 1 "interns")',
      toolsets: ['basecamp.todos'],
      readOnly: true,
    });
    // Every request looks the rule up again.
    await governed.for(caller('basecamp:1'));
    expect(lookups).toEqual(['basecamp:1', 'basecamp:1']);
    const cy = await governed.for(caller('basecamp:2'));
    expect(cy.projects).toEqual([1001]);
    expect(cy.accesses[0]?.toolsets).toBeUndefined();
  });

  it('admits by the rule’s rate, else MCP_RATE_LIMIT; off lifts it', async () => {
    const governed = governance({ rateLimit: readRate('3/h') as Rate });
    const admit = async (userId: string, times: number) => {
      const { accesses } = await governed.for(caller(userId));
      const outcomes: string[] = [];
      for (let call = 0; call < times; call++) {
        outcomes.push(
          await Promise.resolve(accesses[0]?.admit?.({ tool: 'basecamp_list_todos' })).then(
            () => 'ok',
            (error: { code: string }) => error.code,
          ),
        );
      }
      return outcomes;
    };
    expect(await admit('basecamp:2', 3)).toEqual(['ok', 'ok', 'RATE_LIMITED']);
    expect(await admit('basecamp:5', 4)).toEqual(['ok', 'ok', 'ok', 'RATE_LIMITED']);
    expect((await governed.for(caller('basecamp:3'))).accesses).toEqual([]);
  });

  it('without a policy: only MCP_RATE_LIMIT, and no identity lookup', async () => {
    const governed = governance({ withPolicy: false, rateLimit: readRate('1/h') as Rate });
    const { accesses, decision } = await governed.for(caller('basecamp:1'));
    expect(decision).toBeUndefined();
    expect(accesses[0]?.source).toBe('the server (MCP_RATE_LIMIT)');
    await accesses[0]?.admit?.({ tool: 'x' });
    await expect(Promise.resolve(accesses[0]?.admit?.({ tool: 'x' }))).rejects.toMatchObject({
      code: 'RATE_LIMITED',
    });
    expect(lookups).toEqual([]);
    expect((await governance({ withPolicy: false }).for(caller('basecamp:1'))).accesses).toEqual([]);
  });

  it('refuses sign-in and requests of a denied person', async () => {
    const governed = governance();
    expect(governed.signInRefusal({ email: 'gone@example.com', accountId: '999' })).toBe(
      "The server's policy (rule 4) does not admit you to this server. Ask its operator for access.",
    );
    expect(governed.signInRefusal({ email: 'ana@example.com', accountId: '999' })).toBeUndefined();
    const refusal = await governed.refusal(caller('basecamp:4'));
    expect(refusal?.status).toBe(403);
    expect(await refusal?.json()).toMatchObject({ error: 'access_denied' });
    expect(await governed.refusal(caller('basecamp:1'))).toBeUndefined();
  });
});

describe('governedAuth', () => {
  const scopes: ToolAccess = { source: "your token's scopes (mcp:read)", readOnly: true };
  const inner = (answer: AuthInfo | Response): HttpAuth => ({
    authenticate: async () => answer,
    accessFor: () => [scopes],
  });
  const request = new Request('http://127.0.0.1/mcp', { method: 'POST' });

  it('passes the inner answer through, 403 for the denied, and adds the policy to the inner narrowings', async () => {
    const governed = governance();
    const challenge = new Response(null, { status: 401 });
    expect(await governedAuth(inner(challenge), governed).authenticate(request)).toBe(challenge);
    const denied = await governedAuth(inner(caller('basecamp:4')), governed).authenticate(request);
    expect((denied as Response).status).toBe(403);
    const ana = caller('basecamp:1');
    const auth = governedAuth(inner(ana), governed);
    expect(await auth.authenticate(request)).toBe(ana);
    const accesses = (await auth.accessFor?.(ana, request)) ?? [];
    expect(accesses.map((access) => access.source)).toEqual([
      "your token's scopes (mcp:read)",
      'the server\'s policy (rule 1 "interns")',
    ]);
  });

  it('a store that cannot say who the person is: 503 with Retry-After, never a guess', async () => {
    const auth = governedAuth(inner(caller('basecamp:1')), governance({ failing: true }));
    const answer = (await auth.authenticate(request)) as Response;
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('5');
  });
});
