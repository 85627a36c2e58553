// docs/deployment.md, run: every command its `sh` blocks show is either run here against the
// built checkout, as the page writes it (with only the rewrites below), or names why it cannot be
// (a container engine, the network, a real Launchpad). A command added to the page fails the
// first test until it is run or excused here, so the page cannot drift from the CLI.
//
// Rewrites, and nothing else: `x-mcp-server …` is `pnpm -s x-mcp-server …` at the repository root
// (as the page says); `/etc/x-mcp/` and `/var/lib/x-mcp/` are directories of the test; the
// store URLs the page names (compose's `redis://redis:6379`, `…`) are the running server's store;
// `--host 0.0.0.0 --port 8080` is loopback on a free port, and the public URL that origin; the
// Launchpad app is the fake one (its id and secret for the page's `…`, plus its URL).

import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type FakeBasecamp, type FakeIdentity, startFakeBasecamp } from '@x/mcp-basecamp/testing';
import { closedPort, type RunningProcess, runProcess, startHttpBin } from '@x/mcp-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, SECRET, signIn } from './oauth/fixture.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const page = readFileSync(join(root, 'docs/deployment.md'), 'utf8');

interface Command {
  /** The command as the page shows it: continuation lines joined, its trailing comment cut. */
  text: string;
  /** Its trailing comment. */
  comment: string;
  /** The comment lines right after it: the output the page shows. */
  output: string[];
  /** The `##`/`###` section it is in. */
  section: string;
}

/** Every command of the page's `sh` blocks (a heredoc's body is part of its command). */
function commands(): Command[] {
  const found: Command[] = [];
  for (const block of page.matchAll(/^ *```sh\n([\s\S]*?)^ *```/gm)) {
    const before = page.slice(0, block.index);
    const section = [...before.matchAll(/^#{2,3} (.*)$/gm)].at(-1)?.[1] ?? '';
    const lines = (block[1] as string).split('\n').map((line) => line.trim());
    for (let index = 0; index < lines.length; index++) {
      let line = lines[index] as string;
      if (!line) continue;
      if (line.startsWith('#')) {
        found.at(-1)?.output.push(line.replace(/^# ?/, ''));
        continue;
      }
      while (line.endsWith('\\')) line = `${line.slice(0, -1).trimEnd()} ${lines[++index] ?? ''}`;
      const heredoc = /<<(\w+)$/.exec(line)?.[1];
      if (heredoc) while (index < lines.length && lines[index] !== heredoc) index++;
      const [, text = '', comment = ''] = /^(.*?)(?:\s+#\s?(.*))?$/.exec(line) ?? [];
      found.push({ text: text.replace(/\s+/g, ' '), comment, output: [], section });
    }
  }
  return found;
}

const RUN_HERE = 'run here';
/** Each command of the page: run by this file, or why not. */
const COMMANDS: Record<string, string> = {
  'pnpm install --frozen-lockfile && pnpm build': 'the tests run on the built checkout (CI runs both first)',
  'pnpm -s x-mcp-server --http --auth oauth --sandbox':
    'oauth/sandbox-bin.test.ts runs it and signs in from three client styles',
  'pnpm -s x-mcp-server --version': 'checkout-bin.test.ts runs it',
  'export MCP_HTTP_TOKEN=$(openssl rand -hex 32)': RUN_HERE,
  'node apps/server/dist/bin.js --config /etc/x-mcp/server.json --http --host 0.0.0.0 --port 8080 --allowed-hosts mcp.example.com':
    RUN_HERE,
  'npx -y @modelcontextprotocol/inspector@2.12.0 --cli https://mcp.example.com/mcp --transport http --header "Authorization: Bearer $MCP_HTTP_TOKEN" --method tools/list':
    'needs the npm registry: pnpm test:interop runs this form against a server with a token',
  'export MCP_METRICS_TOKEN=$(openssl rand -hex 32)': 'apps/server/test/http.test.ts (metrics)',
  'export MCP_LOG_FORMAT=json': 'mcp-core logging tests',
  'export MCP_LOG_USER_KEY=$(openssl rand -hex 32)': 'mcp-core logging tests',
  'export OTEL_EXPORTER_OTLP_ENDPOINT=http://otel-collector:4318':
    'needs a collector: the tracing tests use a local one',
  'npm install @opentelemetry/api @opentelemetry/sdk-trace-node@^2 @opentelemetry/exporter-trace-otlp-http@^0.223 @opentelemetry/resources@^2':
    'needs the npm registry',
  'for port in 8081 8082 8083; do':
    'the one-server command, per port (apps/server/test/http.test.ts: replicas)',
  'node apps/server/dist/bin.js --config /etc/x-mcp/server.json --http --port $port --allowed-hosts mcp.example.com &':
    'the one-server command, run here, per port',
  done: 'the loop above',
  'export MCP_SECRET=$(openssl rand -base64 48)': RUN_HERE,
  'export BASECAMP_CLIENT_ID=… BASECAMP_CLIENT_SECRET=…': RUN_HERE,
  'export BASECAMP_ALLOWED_ACCOUNTS=999999999': RUN_HERE,
  'export BASECAMP_CONTACT=ops@example.com': RUN_HERE,
  'node apps/server/dist/bin.js --http --host 0.0.0.0 --port 8080 --providers basecamp --auth oauth --public-url https://mcp.example.com --store sqlite:/var/lib/x-mcp/store.db':
    RUN_HERE,
  'x-mcp-server users list --store redis://redis:6379': RUN_HERE,
  'x-mcp-server users revoke basecamp:9999999 --store …': RUN_HERE,
  'x-mcp-server users forget alice@example.com --store …': RUN_HERE,
  'x-mcp-server users --help': RUN_HERE,
  'MCP_SECRET=<new> MCP_SECRET_PREVIOUS=<old> x-mcp-server keys rotate --store redis://redis:6379': RUN_HERE,
  'MCP_AUTO_OPEN_ENABLED=true MCP_INSPECTOR_SECRET_STORE=memory npx -y @modelcontextprotocol/inspector@2.12.0 --cli https://mcp.example.com/mcp --transport http --method tools/list':
    'needs the npm registry: scripts/inspector-oauth.mjs runs it (pnpm test:interop)',
  'cat > .env <<ENV':
    'compose: no container engine here; oauth/deploy-files.test.ts checks the example against compose.yaml',
  'chmod 600 .env': 'compose',
  'docker compose up -d --build': 'no container engine here',
  'docker compose exec server-1 node /app/bin/x-mcp-server.js users list':
    'no container engine; the same command from the checkout is run here',
  'docker compose exec server-1 node /app/bin/x-mcp-server.js users revoke alice@example.com':
    'no container engine; the same command from the checkout is run here',
  'docker compose exec server-1 node /app/bin/x-mcp-server.js keys rotate':
    'no container engine; the same command from the checkout is run here',
  'x-mcp-server policy check /etc/x-mcp/policy.json': RUN_HERE,
  'MCP_POLICY=/etc/x-mcp/policy.json MCP_RATE_LIMIT=300/min x-mcp-server --http --auth oauth --providers basecamp,bbj-rag --public-url https://mcp.example.com':
    'the hosted command with a policy: policy-bin.test.ts',
  'x-mcp-server policy explain pat@contractor.example': RUN_HERE,
  'x-mcp-server audit tail --user pat@contractor.example --since 1h': RUN_HERE,
  'x-mcp-server audit verify': RUN_HERE,
  'x-mcp-server policy explain pat@contractor.example --account 999 --policy /etc/x-mcp/policy.json':
    RUN_HERE,
  'MCP_AUDIT=file:$HOME/.local/state/x-mcp-server/audit.jsonl x-mcp-server':
    'a stdio server: apps/server/test/audit.test.ts',
  'x-mcp-server audit tail --sink file:$HOME/.local/state/x-mcp-server/audit.jsonl --since 1h':
    'the stdio server’s log: apps/server/test/audit.test.ts',
  'x-mcp-server audit tail --user ana@example.com --since 2h': RUN_HERE,
  'x-mcp-server audit tail --tool basecamp_create_todo -n 100 --store redis://redis:6379': RUN_HERE,
  "jq 'select(.denied)' /var/lib/x-mcp/audit.jsonl": 'jq is not a dependency; the audit tests read the file',
};

/** The page's command, which must be there (in `section` when given). */
function documented(text: string, section?: string): Command {
  const found = commands().filter(
    (command) => command.text === text && (!section || command.section === section),
  );
  expect(
    found.map((command) => command.text),
    `docs/deployment.md shows \`${text}\``,
  ).toContain(text);
  return found[0] as Command;
}

/** The first `json` block of a section. */
function jsonOf(section: string): string {
  const start = page.indexOf(`\n${section}\n`);
  expect(start, section).toBeGreaterThan(0);
  return /```json\n([\s\S]*?)```/.exec(page.slice(start))?.[1] ?? '';
}

let dir: string;
let state: string;
let fake: FakeBasecamp;
let port: number;
/** The hosted server's store, as the page's command names it after the rewrite. */
let store: string;
/** The environment the page's `export` lines make, plus what the test rewrites. */
let exported: Record<string, string | undefined>;

/** Rewrites one command of the page into [env, argv] as the test runs it (see the top). */
function rewrite(text: string): { env: Record<string, string>; argv: string[] } {
  const words = text
    .replaceAll('/etc/x-mcp/', `${dir}/etc/x-mcp/`)
    .replaceAll('/var/lib/x-mcp/', `${state}/x-mcp-server/`)
    .replaceAll('redis://redis:6379', store)
    .replaceAll('--store …', `--store ${store}`)
    .replaceAll('--host 0.0.0.0', '--host 127.0.0.1')
    .replaceAll('--port 8080', `--port ${port}`)
    .replaceAll('--public-url https://mcp.example.com', `--public-url http://127.0.0.1:${port}`)
    .split(' ');
  const env: Record<string, string> = {};
  while (/^[A-Z_]+=/.test(words[0] ?? '')) {
    const [name = '', value = ''] = (words.shift() as string).split(/=(.*)/);
    env[name] = value;
  }
  if (words[0] === 'x-mcp-server') words.splice(0, 1, 'pnpm', '-s', 'x-mcp-server');
  return { env, argv: words };
}

/** Runs a command of the page at the repository root, `pnpm` and `node` being Node 22. */
function run(text: string, extra: Record<string, string> = {}) {
  const { env, argv } = rewrite(text);
  const [command = '', ...args] = argv;
  return runProcess({
    command,
    args,
    cwd: root,
    env: {
      ...exported,
      PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
      ...env,
      ...extra,
    },
  });
}

/** The page's `export` lines of a section, with the test's values for what the page leaves to you. */
function exportsOf(section: string, values: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const command of commands().filter((item) => item.section === section)) {
    const assignments = /^export (.+)$/.exec(command.text)?.[1];
    if (!assignments) continue;
    for (const assignment of assignments.split(' ')) {
      const [name = '', value = ''] = assignment.split(/=(.*)/);
      const given = values[name];
      if (value === '…' || value.startsWith('$(')) {
        expect(given, `a value for ${name}`).toBeDefined();
        env[name] = given as string;
      } else env[name] = value;
    }
  }
  return env;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'deployment-doc-'));
  state = join(dir, 'state');
  await mkdir(join(dir, 'etc/x-mcp'), { recursive: true });
  fake = await startFakeBasecamp();
  port = await closedPort();
  store = `sqlite:${state}/x-mcp-server/store.db`;
  exported = {
    HOME: dir,
    XDG_CONFIG_HOME: dir,
    // The default store (`sqlite:$XDG_STATE_HOME/x-mcp-server/store.db`) is where the page's
    // `/var/lib/x-mcp/store.db` goes, so the commands shown without --store find it too.
    XDG_STATE_HOME: state,
    MCP_STORE: undefined,
    MCP_AUDIT: undefined,
    MCP_POLICY: undefined,
    MCP_PUBLIC_URL: undefined,
    MCP_SECRET_FILE: undefined,
    MCP_SECRET_PREVIOUS: undefined,
    MCP_HTTP_TOKEN: undefined,
    MCP_RATE_LIMIT: undefined,
  };
});
afterAll(async () => {
  await fake?.close();
});

describe('docs/deployment.md', () => {
  it('every command it shows is run here or says why not', () => {
    const shown = [...new Set(commands().map((command) => command.text))];
    const unknown = shown.filter((text) => !(text in COMMANDS));
    expect(unknown, 'commands of the page this test neither runs nor excuses: add them to COMMANDS').toEqual(
      [],
    );
    const gone = Object.keys(COMMANDS).filter((text) => !shown.includes(text));
    expect(gone, 'commands no longer on the page: remove them from COMMANDS').toEqual([]);
  });

  it('One server: the token command serves its token and allowed host, with the config of apps/server', async () => {
    const command = documented(
      'node apps/server/dist/bin.js --config /etc/x-mcp/server.json --http --host 0.0.0.0 --port 8080 --allowed-hosts mcp.example.com',
      'One server',
    );
    // The config the section links to: apps/server/README.md's example.
    const readme = readFileSync(join(root, 'apps/server/README.md'), 'utf8');
    expect(page.slice(page.indexOf('## One server'))).toContain(
      '../apps/server/README.md#choosing-providers-and-tools',
    );
    const config = /## Choosing providers and tools[\s\S]*?```json\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(JSON.parse(config)).toHaveProperty('providers');
    await writeFile(join(dir, 'etc/x-mcp/server.json'), config);
    const token = exportsOf('One server', {
      MCP_HTTP_TOKEN: 'a-token-of-the-test-0123456789abcdef',
    }).MCP_HTTP_TOKEN;
    const { env, argv } = rewrite(command.text);
    const [node = '', ...args] = argv;
    expect(node).toBe('node');
    const server = await startHttpBin({
      command: process.execPath,
      args,
      cwd: root,
      env: { ...exported, ...env, MCP_HTTP_TOKEN: token },
    });
    try {
      // As a proxy sends them: the public Host (fetch cannot set Host).
      const send = (path: string, host: string, headers: Record<string, string> = {}, body?: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const request = httpRequest(
            new URL(path, server.url),
            { method: body ? 'POST' : 'GET', headers: { host, ...headers } },
            (response) => {
              let text = '';
              response.setEncoding('utf8');
              response.on('data', (chunk: string) => {
                text += chunk;
              });
              response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
            },
          );
          request.once('error', reject);
          request.end(body);
        });
      expect((await send('/healthz', 'mcp.example.com')).status).toBe(200);
      expect((await send('/healthz', 'evil.example')).status).toBe(403);
      const list = (bearer?: string) =>
        send(
          '/mcp',
          'mcp.example.com',
          {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
          },
          '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        );
      expect((await list()).status).toBe(401);
      const listed = await list(token);
      expect(listed.status, listed.body).toBe(200);
      // The README's config: Forge's chosen tools, Context Forge as cf_, BBj RAG without a prefix.
      // One server-sent event (or plain JSON) with the answer.
      const answer = /^data: (.*)$/m.exec(listed.body)?.[1] ?? listed.body;
      const names = (JSON.parse(answer) as { result: { tools: Array<{ name: string }> } }).result.tools.map(
        (tool) => tool.name,
      );
      expect(names).toEqual(expect.arrayContaining(['forge_list_tickets', 'search_bbj_knowledge']));
      expect(names.some((name) => name.startsWith('cf_'))).toBe(true);
      expect(names.some((name) => name.startsWith('basecamp_'))).toBe(false);
    } finally {
      await server.stop();
    }
  }, 60_000);

  describe('Hosted for many users: the server, then the admin commands beside it', () => {
    const OLD = SECRET;
    const NEW = 'the-new-secret-of-the-rotation-0123456789abcdef';
    // The people the page's admin commands name: `users revoke basecamp:9999999`, `users forget
    // alice@example.com`, `audit tail --user ana@example.com`.
    const ANA: FakeIdentity = {
      id: 9999999,
      firstName: 'Ana',
      lastName: 'Alves',
      email: 'ana@example.com',
      accounts: [{ id: 999999999, name: 'Honcho Design' }],
    };
    let server: RunningProcess & { url: string };

    beforeAll(async () => {
      const section = 'Hosted for many users (`--auth oauth`)';
      exported = {
        ...exported,
        ...exportsOf(section, {
          MCP_SECRET: OLD,
          BASECAMP_CLIENT_ID: fake.client.id,
          BASECAMP_CLIENT_SECRET: fake.client.secret,
        }),
        // The fake Launchpad and Basecamp in place of the real ones.
        BASECAMP_LAUNCHPAD_URL: fake.launchpadUrl,
        BASECAMP_API_URL: fake.url,
      };
      expect(exported).toMatchObject({
        BASECAMP_ALLOWED_ACCOUNTS: '999999999',
        BASECAMP_CONTACT: 'ops@example.com',
      });
      const command = documented(
        'node apps/server/dist/bin.js --http --host 0.0.0.0 --port 8080 --providers basecamp --auth oauth --public-url https://mcp.example.com --store sqlite:/var/lib/x-mcp/store.db',
        section,
      );
      const { env, argv } = rewrite(command.text);
      expect(argv.slice(0, 2)).toEqual(['node', 'apps/server/dist/bin.js']);
      expect(argv).toContain(store);
      server = await startHttpBin({
        command: process.execPath,
        args: argv.slice(1),
        cwd: root,
        env: { ...exported, ...env },
      });
      for (const person of [ALICE, ANA]) {
        const user = await signIn({ url: server.url, fake }, person);
        try {
          if (person === ANA) {
            // A call the audit log records (refused upstream: the ids do not exist).
            await user.client.callTool({
              name: 'basecamp_create_todo',
              arguments: { project_id: 1, todolist_id: 2, content: 'Pack the laptops' },
            });
          }
        } finally {
          await user.close();
        }
      }
    }, 120_000);
    afterAll(async () => {
      await server?.stop();
    });

    const users = async () => {
      const listed = await run('x-mcp-server users list --store redis://redis:6379');
      expect(listed.code, listed.stderr).toBe(0);
      return listed.stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    };

    it('is ready, and users list prints one JSON line per user with the fields the page names', async () => {
      expect((await fetch(new URL('/readyz', server.url))).status).toBe(200);
      const command = documented('x-mcp-server users list --store redis://redis:6379');
      const fields = (/^one JSON line per user: (.+)$/.exec(command.comment)?.[1] ?? '').split(', ');
      expect(fields).toEqual(expect.arrayContaining(['user', 'email', 'status']));
      const listed = await users();
      expect(listed.map((user) => user.email).sort()).toEqual(['alice@example.com', 'ana@example.com']);
      for (const user of listed) expect(Object.keys(user).sort()).toEqual([...fields].sort());
      expect(listed.find((user) => user.email === 'ana@example.com')).toMatchObject({
        user: 'basecamp:9999999',
        name: 'Ana Alves',
        accountId: '999999999',
        status: 'active',
        grants: 1,
      });
    }, 60_000);

    it('audit tail and audit verify, as shown, read the log next to the store', async () => {
      const ana = await run(documented('x-mcp-server audit tail --user ana@example.com --since 2h').text);
      expect(ana.code, ana.stderr).toBe(0);
      const records = ana.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { event: string; user: { email: string } | null; name?: string });
      expect(records.map((record) => record.event)).toEqual(
        expect.arrayContaining(['sign-in', 'tools/call']),
      );
      for (const record of records) expect(record.user?.email).toBe('ana@example.com');
      const todo = await run(
        documented('x-mcp-server audit tail --tool basecamp_create_todo -n 100 --store redis://redis:6379')
          .text,
      );
      expect(todo.code, todo.stderr).toBe(0);
      const calls = todo.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { name: string });
      expect(calls.map((call) => call.name)).toEqual(['basecamp_create_todo']);
      const pat = await run(
        documented('x-mcp-server audit tail --user pat@contractor.example --since 1h').text,
      );
      expect({ code: pat.code, stdout: pat.stdout }).toEqual({ code: 0, stdout: '' });
      const verify = await run(documented('x-mcp-server audit verify').text);
      expect(verify.code, verify.stderr).toBe(0);
      expect(JSON.parse(verify.stdout)).toMatchObject({ ok: true, records: expect.any(Number) });
    }, 60_000);

    it('users revoke and users forget, as shown, beside the running server', async () => {
      const revoke = await run(documented('x-mcp-server users revoke basecamp:9999999 --store …').text);
      expect(revoke.code, revoke.stderr).toBe(0);
      expect((await users()).find((user) => user.user === 'basecamp:9999999')?.status).toBe('revoked');
      const forget = await run(documented('x-mcp-server users forget alice@example.com --store …').text);
      expect(forget.code, forget.stderr).toBe(0);
      expect((await users()).map((user) => user.email)).toEqual(['ana@example.com']);
      const help = await run(documented('x-mcp-server users --help').text);
      expect(help.code).toBe(0);
      expect(help.stdout + help.stderr).toContain('Usage: x-mcp-server users list [--store <url>]');
    }, 60_000);

    it('keys rotate, as shown, prints what the page says', async () => {
      const command = documented(
        'MCP_SECRET=<new> MCP_SECRET_PREVIOUS=<old> x-mcp-server keys rotate --store redis://redis:6379',
      );
      const rotate = await run(command.text.replace('<new>', NEW).replace('<old>', OLD));
      expect(rotate.code, rotate.stderr).toBe(0);
      const printed = JSON.parse(rotate.stdout) as Record<string, unknown>;
      const named = /It prints `\{ ([^}]+) \}`/.exec(page.replace(/\s+/g, ' '))?.[1]?.split(', ') ?? [];
      expect(named).toContain('keyId');
      expect(Object.keys(printed).sort()).toEqual([...named].sort());
      expect(printed).toMatchObject({ unreadable: 0, signingKeyRotated: true });
      expect(printed.resealed).toBeGreaterThan(0);
    }, 60_000);
  });

  describe('Governance: policy check and explain, on the page’s own policy files', () => {
    const cases = [
      {
        section: '### A small team, worked through',
        check: 'x-mcp-server policy check /etc/x-mcp/policy.json',
        explain: 'x-mcp-server policy explain pat@contractor.example',
      },
      {
        section: '### Policy',
        check: 'x-mcp-server policy check /etc/x-mcp/policy.json',
        explain:
          'x-mcp-server policy explain pat@contractor.example --account 999 --policy /etc/x-mcp/policy.json',
      },
    ];
    for (const { section, check, explain } of cases) {
      it(`${section}: valid, and pat's rule as shown`, async () => {
        const name = section.replace(/^#+ /, '');
        const policy = jsonOf(section);
        await writeFile(join(dir, 'etc/x-mcp/policy.json'), policy);
        const rules = (JSON.parse(policy) as { rules: unknown[] }).rules.length;
        const checked = await run(documented(check, name).text);
        expect(checked.code, checked.stderr).toBe(0);
        expect(checked.stdout).toMatch(
          new RegExp(`^${dir}/etc/x-mcp/policy\\.json: valid, ${rules} rules, sha256 [0-9a-f]{12}\\n$`),
        );
        const shown = documented(explain, name);
        // The governance walk-through runs the server with MCP_POLICY set: explain reads it.
        const explained = await run(shown.text, { MCP_POLICY: join(dir, 'etc/x-mcp/policy.json') });
        expect(explained.code, explained.stderr).toBe(0);
        const output = explained.stdout.replaceAll(`${dir}/etc/x-mcp/`, '/etc/x-mcp/');
        if (shown.output.length > 0) expect(output).toBe(`${shown.output.join('\n')}\n`);
        else {
          // A one-line summary in the comment: `rule 3 "contractors" (line 8): read only, projects 1001, 1002, 60/min`.
          const [, rule = ''] = /^(rule \d+ "[^"]+" \(line \d+\)):/.exec(shown.comment) ?? [];
          expect(rule).not.toBe('');
          expect(output.split('\n')[0]).toContain(`: ${rule} of /etc/x-mcp/policy.json`);
          expect(output).toContain('readOnly: yes');
          expect(output).toContain('projects: 1001, 1002');
          expect(output).toContain('rateLimit: 60/min');
        }
      }, 60_000);
    }
  });
});
