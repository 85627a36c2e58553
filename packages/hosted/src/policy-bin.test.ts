// The operator's policy (MCP_POLICY) and per-user rate limits (MCP_RATE_LIMIT) in the composed
// server (apps/server, --auth oauth) as a process: a rule applies on the request after the file
// changed (no new sign-in), a bad version is kept out, SIGHUP reads the file again, a denied
// person is refused at sign-in and at /mcp, and a user over the limit gets RATE_LIMITED.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FakeIdentity } from '@x/mcp-basecamp/testing';
import { type FakeBasecamp, LAPTOP, LOCATOR, startFakeBasecamp } from '@x/mcp-basecamp/testing';
import { closedPort, type RunningProcess, startHttpBin } from '@x/mcp-core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ALICE,
  BOB,
  oauthBinEnv,
  postToolsList,
  REDIRECT,
  SECRET,
  type SignedIn,
  signIn,
} from './oauth/fixture.js';
import { type BrowserPage, OAuthBrowser } from './testing/index.js';

const bin = fileURLToPath(new URL('../../../apps/server/dist/bin.js', import.meta.url));

const CAROL: FakeIdentity = {
  id: 404,
  firstName: 'Carol',
  lastName: 'Cole',
  email: 'carol@contractor.example',
  accounts: [{ id: 999999999, name: 'Honcho Design' }],
};

const V1 = `{
  "rules": [
    {"match": {"email": "alice@example.com"}, "readOnly": true, "name": "interns"},
    {"match": {"email": "bob@example.com"}, "rateLimit": "3/h"},
    {"match": {"domain": "contractor.example"}, "deny": true}
  ],
  "default": {}
}
`;
/** Alice: the to-do tools only, writes included. */
const V2 = V1.replace(
  '"readOnly": true, "name": "interns"',
  '"toolsets": ["basecamp.todos"], "name": "todo crew"',
);
/** Alice refused. */
const V3 = V1.replace('"readOnly": true, "name": "interns"', '"deny": true');

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);

let fake: FakeBasecamp;
let server: RunningProcess & { url: string };
let dir: string;
/** MCP_POLICY: a symlink in `dir` to a file in `versions` (as a Kubernetes ConfigMap mounts it). */
let policyPath: string;
let versions: string;
let alice: SignedIn;
/** MCP_AUDIT: the server's audit log, a file. */
let auditFile: string;

/** The audit records written so far that `match`, once there are `count` of them (records are written every 20 ms). */
async function auditRecords(match: (record: Record<string, unknown>) => boolean, count: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const text = await readFile(auditFile, 'utf8').catch(() => '');
    const found = text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter(match);
    if (found.length >= count || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Points the policy symlink at a new file with `text`, replacing it in one rename (the watched way). */
async function swapPolicy(name: string, text: string) {
  await writeFile(join(versions, name), text);
  await symlink(join(versions, name), join(dir, 'next'));
  await rename(join(dir, 'next'), policyPath);
}

const toolNames = async (user: SignedIn) => (await user.client.listTools()).tools.map((tool) => tool.name);
const body = (result: { content?: unknown }) =>
  JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? '{}') as Record<string, unknown>;
const accessToken = (user: SignedIn) => (user.oauth.tokens() as { access_token: string }).access_token;

beforeAll(async () => {
  if (!existsSync(bin)) throw new Error(`Build apps/server first (pnpm build): ${bin} is missing.`);
  fake = await startFakeBasecamp();
  dir = await mkdtemp(join(tmpdir(), 'policy-bin-'));
  versions = join(dir, '..', `${dir.split('/').at(-1)}-versions`);
  await mkdir(versions);
  policyPath = join(dir, 'policy.json');
  await writeFile(join(versions, 'v1.json'), V1);
  await symlink(join(versions, 'v1.json'), policyPath);
  const home = await mkdtemp(join(tmpdir(), 'policy-bin-home-'));
  auditFile = join(home, 'audit.jsonl');
  const port = await closedPort();
  server = await startHttpBin({
    command: process.execPath,
    args: [bin, '--http', '--port', String(port), '--auth', 'oauth', '--providers', 'basecamp'],
    env: {
      ...oauthBinEnv({ home, publicUrl: `http://127.0.0.1:${port}`, store: 'memory:', fake }),
      MCP_POLICY: policyPath,
      MCP_RATE_LIMIT: '1000/min',
      MCP_AUDIT: `file:${auditFile}`,
    },
  });
  await server.waitForStderr(digest(V1));
}, 60_000);

afterAll(async () => {
  await alice?.close();
  await server?.stop();
  await fake?.close();
  await rm(dir, { recursive: true, force: true });
  await rm(versions, { recursive: true, force: true });
});

let logsShown = false;
afterEach((context) => {
  if (logsShown || context.task.result?.state !== 'fail') return;
  logsShown = true;
  process.stderr.write(`\n--- server stderr ---\n${server.stderr().slice(-20_000)}\n`);
});

describe('x-mcp-server --auth oauth with MCP_POLICY', () => {
  it('applies the first matching rule: read-only for Alice, a rate limit for Bob', async () => {
    alice = await signIn({ url: server.url, fake }, ALICE);
    const names = await toolNames(alice);
    expect(names).toContain('basecamp_list_projects');
    expect(names).not.toContain('basecamp_create_todo');
    const refused = await alice.client.callTool({ name: 'basecamp_create_todo', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(body(refused)).toMatchObject({
      error_code: 'PERMISSION_DENIED',
      refused_by: 'the server\'s policy (rule 1 "interns")',
      rule: 'readOnly',
    });
    const me = body(await alice.client.callTool({ name: 'hosted_whoami', arguments: {} }));
    expect(me).toMatchObject({
      policy: { rule: 1, name: 'interns', read_only: true },
      rate_limit: '1000/min',
    });

    const bob = await signIn({ url: server.url, fake }, BOB);
    try {
      expect(await toolNames(bob)).toContain('basecamp_create_todo');
      for (let call = 0; call < 3; call++) {
        const result = await bob.client.callTool({ name: 'basecamp_list_projects', arguments: {} });
        expect(result.isError, `call ${call}`).toBeFalsy();
      }
      fake.resetLog();
      const limited = await bob.client.callTool({ name: 'basecamp_list_projects', arguments: {} });
      expect(limited.isError).toBe(true);
      const error = body(limited);
      expect(error).toMatchObject({ error_code: 'RATE_LIMITED', retryable: true, limit: '3/h' });
      expect(error.retry_after_ms).toBeGreaterThan(1_190_000);
      expect(error.message).toContain("set by the server's policy (rule 2)");
      // Refused before any upstream request; the connection stays usable.
      expect(fake.requests).toEqual([]);
      expect(await toolNames(bob)).toContain('basecamp_list_projects');
      // Alice is not affected by Bob's limit.
      expect(
        (await alice.client.callTool({ name: 'basecamp_list_projects', arguments: {} })).isError,
      ).toBeFalsy();
    } finally {
      await bob.close();
    }
    const metrics = await (await fetch(new URL('/metrics', server.url))).text();
    expect(metrics).toMatch(
      /mcp_tool_calls_total\{tool="basecamp_list_projects",outcome="RATE_LIMITED"\} 1\b/,
    );
    expect(metrics).toMatch(
      /mcp_tool_calls_total\{tool="basecamp_create_todo",outcome="PERMISSION_DENIED"\} 1\b/,
    );
  });

  it('a changed file applies on the next request, with no new sign-in', async () => {
    await swapPolicy('v2.json', V2);
    await server.waitForStderr(digest(V2));
    const names = await toolNames(alice);
    expect(names).toContain('basecamp_create_todo');
    expect(names).not.toContain('basecamp_list_projects');
    const refused = await alice.client.callTool({ name: 'basecamp_list_projects', arguments: {} });
    expect(body(refused)).toMatchObject({
      error_code: 'PERMISSION_DENIED',
      refused_by: 'the server\'s policy (rule 1 "todo crew")',
      rule: 'toolsets',
    });
  });

  it('a bad new version is logged and kept out; the policy in force stays', async () => {
    const bad = V2.replace('"rateLimit": "3/h"', '"rateLimit": "3 per hour"');
    await swapPolicy('bad.json', bad);
    await server.waitForStderr(`${policyPath}:4:58: rules[1].rateLimit: must be <count>/<unit>`);
    expect(server.stderr()).toContain('not reloaded, the previous one stays in force');
    const names = await toolNames(alice);
    expect(names).toContain('basecamp_create_todo');
    expect(names).not.toContain('basecamp_list_projects');
    // A toolset the server does not serve is as bad as a syntax error.
    await swapPolicy('unknown.json', V2.replace('basecamp.todos', 'basecamp.todo'));
    await server.waitForStderr('rules[0].toolsets[0]: unknown toolset');
    expect(server.stderr()).toContain('basecamp.todo\\"');
    // So is a tool it does not serve.
    await swapPolicy(
      'typo.json',
      V2.replace(
        '"rateLimit": "3/h"',
        '"rateLimit": "3/h", "toolRateLimits": {"basecamp_list_project": "1/s"}',
      ),
    );
    await server.waitForStderr('rules[1].toolRateLimits.basecamp_list_project: ');
    expect(await toolNames(alice)).toContain('basecamp_create_todo');
    expect(await toolNames(alice)).toContain('basecamp_create_todo');
  });

  it('SIGHUP reads the file again (an edit the directory watch cannot see)', async () => {
    // The symlink's target is edited in place, in another directory: no event in the watched one.
    await swapPolicy('v1-again.json', V1.replace('"name": "interns"', '"name": "interns again"'));
    await server.waitForStderr(digest(V1.replace('"name": "interns"', '"name": "interns again"')));
    const edited = V1.replace('"name": "interns"', '"name": "interns (SIGHUP)"');
    await writeFile(join(versions, 'v1-again.json'), edited);
    server.child.kill('SIGHUP');
    await server.waitForStderr(digest(edited));
    const me = body(await alice.client.callTool({ name: 'hosted_whoami', arguments: {} }));
    expect(me).toMatchObject({ policy: { rule: 1, name: 'interns (SIGHUP)', read_only: true } });
    expect(await toolNames(alice)).not.toContain('basecamp_create_todo');
  });

  it('projects (and its older name basecampProjects): a changed allowlist applies on the next request, before any upstream request', async () => {
    const listed = async () =>
      (
        body(
          await alice.client.callTool({ name: 'basecamp_list_projects', arguments: { status: 'all' } }),
        ) as {
          items: { id: number }[];
        }
      ).items.map((project) => project.id);
    expect(await listed()).toContain(LOCATOR);
    const limited = V1.replace('"readOnly": true, "name": "interns"', `"basecampProjects": [${LAPTOP}]`);
    await swapPolicy('projects.json', limited);
    await server.waitForStderr(digest(limited));
    expect(await listed()).toEqual([LAPTOP]);
    fake.resetLog();
    const refused = body(
      await alice.client.callTool({ name: 'basecamp_list_messages', arguments: { project_id: LOCATOR } }),
    );
    expect(refused).toMatchObject({ error_code: 'PERMISSION_DENIED', allowed_projects: [LAPTOP] });
    expect(fake.requests.filter((request) => request.path.includes(String(LOCATOR)))).toEqual([]);
    // The generic key (decision 0028) narrows the same; whoami names it after the sign-in.
    const generic = V1.replace(
      '"readOnly": true, "name": "interns"',
      `"projects": [${LOCATOR}], "name": "g"`,
    );
    await swapPolicy('projects-generic.json', generic);
    await server.waitForStderr(digest(generic));
    expect(await listed()).toEqual([LOCATOR]);
    expect(body(await alice.client.callTool({ name: 'hosted_whoami', arguments: {} }))).toMatchObject({
      policy: { rule: 1, name: 'g', basecamp_projects: [LOCATOR] },
    });
  });

  it('deny: a denied person cannot sign in (a page that says so), and a signed-in one gets 403', async () => {
    const browser = new OAuthBrowser({ stopAt: (url) => url.href.startsWith(REDIRECT) });
    // The last page the browser was shown (after the consent form is approved).
    let page: BrowserPage | undefined;
    const submit = browser.submit.bind(browser);
    browser.submit = async (...args) => {
      page = await submit(...args);
      return page;
    };
    const refused = await signIn({ url: server.url, fake }, CAROL, { browser }).then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(refused).toContain('sign-in did not reach the client: 403');
    expect(page?.body).toContain(
      'The server&#39;s policy (rule 3) does not admit you to this server. Ask its operator for access.',
    );
    expect(fake.revoked.length).toBeGreaterThan(0);

    await swapPolicy('v3.json', V3);
    await server.waitForStderr(digest(V3));
    const response = await postToolsList(server.url, accessToken(alice));
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      error: 'access_denied',
      error_description:
        "The server's policy (rule 1) does not admit you to this server. Ask its operator for access.",
    });
    // Both refusals are in the audit log.
    const [signInRecord] = await auditRecords(
      (record) => record.event === 'sign-in' && record.denied === true,
      1,
    );
    expect(signInRecord).toMatchObject({
      outcome: 'access_denied',
      user: { id: `basecamp:${CAROL.id}`, email: CAROL.email },
      reason: 'the policy denies account 999999999',
    });
    const [requestRecord] = await auditRecords((record) => record.event === 'request', 1);
    expect(requestRecord).toMatchObject({
      outcome: 'PERMISSION_DENIED',
      denied: true,
      user: { id: `basecamp:${ALICE.id}`, email: ALICE.email },
      reason: 'the policy denies this user',
    });
    expect(server.stderr()).not.toContain(SECRET);
  });
});
