// The deployment files at the repository root are read, not run (no container engine in CI):
// this checks that Caddy in compose.yaml forwards every path the server's metadata and sign-in
// use, and that the Dockerfile starts what the build produces.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Hosted, startHosted } from './fixture.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const compose = readFileSync(`${root}compose.yaml`, 'utf8');
const dockerfile = readFileSync(`${root}Dockerfile`, 'utf8');

/** Caddy's `path` matcher: exact paths, and `prefix/*` for everything under a prefix. */
function forwarded(path: string): boolean {
  const line = /@server path (.+)/.exec(compose)?.[1] ?? '';
  return line
    .trim()
    .split(/\s+/)
    .some((pattern) => (pattern.endsWith('/*') ? path.startsWith(pattern.slice(0, -1)) : path === pattern));
}

let env: Hosted;
beforeAll(async () => {
  env = await startHosted();
});
afterAll(() => env.close());

describe('compose.yaml and Dockerfile', () => {
  it('Caddy forwards every path of the metadata, the sign-in and the MCP endpoint', async () => {
    const as = (await (await fetch(`${env.origin}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    const prm = (await (await fetch(`${env.origin}/.well-known/oauth-protected-resource/mcp`)).json()) as {
      resource: string;
    };
    const urls = [
      as.authorization_endpoint,
      as.token_endpoint,
      as.registration_endpoint,
      as.revocation_endpoint,
      as.jwks_uri,
      prm.resource,
    ].map((url) => new URL(String(url)).pathname);
    const paths = [
      ...urls,
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
      '/register/some-client-id',
      '/interaction/abcdefghijkl/decision',
      '/oauth/callback/basecamp',
    ];
    expect(paths).toContain('/mcp');
    for (const path of paths) expect({ path, forwarded: forwarded(path) }).toEqual({ path, forwarded: true });
    // The probes stay inside (they are not for the internet), and nothing else is forwarded.
    expect(forwarded('/readyz')).toBe(false);
    expect(forwarded('/healthz')).toBe(false);
    expect(forwarded('/admin')).toBe(false);
  });

  it('two replicas on Redis, and an image that runs the built bin as a non-root user on Node 24', () => {
    expect(compose).toMatch(/^ {2}server-1: \*server$/m);
    expect(compose).toMatch(/^ {2}server-2: \*server$/m);
    expect(compose).toContain('MCP_STORE: redis://redis:6379');
    expect(compose).toContain('reverse_proxy server-1:8080 server-2:8080');
    expect(dockerfile).toContain('ARG NODE_IMAGE=node:24-');
    expect(dockerfile).toMatch(/^USER node$/m);
    const entry = /ENTRYPOINT \["node", "\/app\/(.+?)"\]/.exec(dockerfile)?.[1] ?? '';
    expect(existsSync(`${root}apps/server/${entry}`)).toBe(true);
    const files = (JSON.parse(readFileSync(`${root}apps/server/package.json`, 'utf8')) as { files: string[] })
      .files;
    expect(files).toEqual(expect.arrayContaining(['bin', 'dist']));
  });
});

describe('compose.single.yaml', () => {
  const single = readFileSync(`${root}compose.single.yaml`, 'utf8');
  /** The Caddyfile inline in a compose file, without the lines that name the upstreams. */
  const caddyfile = (text: string) =>
    (/^ {4}content: \|\n((?: {6}.*\n|\n)+)/m.exec(text)?.[1] ?? '')
      .split('\n')
      .filter((line) => !/reverse_proxy |lb_policy |# Any replica answers/.test(line))
      .join('\n');

  it('one server on the SQLite store in a volume, no Redis, behind the same Caddy configuration', () => {
    expect(single).toContain('MCP_STORE: sqlite:/data/x-mcp-server/store.db');
    expect(single).toMatch(/^ {6}- server-data:\/data$/m);
    expect(single).not.toMatch(/image: redis|redis:\/\//);
    expect(single).toContain('reverse_proxy server:8080 {');
    expect(caddyfile(single)).toContain('@server path /mcp ');
    expect(caddyfile(single)).toBe(caddyfile(compose));
    // The image keeps /data for the store, owned by the user it runs as.
    expect(dockerfile).toMatch(/^RUN mkdir -p \/data && chown node:node \/data$/m);
    expect(dockerfile).toContain('XDG_STATE_HOME=/data');
  });
});

describe('what compose passes to the server', () => {
  const deployment = readFileSync(`${root}docs/deployment.md`, 'utf8');
  /** Every variable docs/deployment.md names for the server. */
  const documented = [
    ...new Set(
      [
        ...deployment.matchAll(/\b((?:MCP|BASECAMP|FORGE|BBJ_RAG|CONTEXT_FORGE|OTEL)_[A-Z0-9_]*[A-Z0-9])\b/g),
      ].map((match) => match[1] as string),
    ),
  ];
  /** Set by the compose files themselves, whatever `.env` says. */
  const SET_BY_COMPOSE = new Set(['MCP_PUBLIC_URL', 'MCP_STORE', 'MCP_TRUST_PROXY']);

  /** The server service's `env_file` and `environment` entries (name → value as written). */
  function serverEnvironment(text: string): { envFile: string | undefined; entries: Map<string, string> } {
    const block = /^( +)env_file: (.+)\n\1environment:\n((?:\1 {2}.*\n)+)/m.exec(text);
    const entries = new Map<string, string>();
    for (const line of (block?.[3] ?? '').split('\n')) {
      const entry = /^\s+([A-Z][A-Z0-9_]*): (.*)$/.exec(line);
      if (entry) entries.set(entry[1] as string, entry[2] as string);
    }
    return { envFile: block?.[2], entries };
  }

  it('names the variables this check reads (the page has them)', () => {
    expect(documented).toEqual(
      expect.arrayContaining([
        'MCP_SECRET',
        'MCP_METRICS_TOKEN',
        'MCP_LOG_FORMAT',
        'MCP_LOG_USER_KEY',
        'OTEL_EXPORTER_OTLP_ENDPOINT',
        'MCP_OAUTH_DCR',
        'MCP_OAUTH_REDIRECT_HOSTS',
        'BASECAMP_CONTACT',
        'FORGE_API_URL',
        'BBJ_RAG_API_URL',
      ]),
    );
  });

  for (const [file, text] of [
    ['compose.yaml', compose],
    ['compose.single.yaml', readFileSync(`${root}compose.single.yaml`, 'utf8')],
  ] as const) {
    it(`${file}: every documented variable in .env reaches the server (env_file), none is shadowed`, () => {
      const { envFile, entries } = serverEnvironment(text);
      expect(envFile).toBe('.env');
      for (const name of documented) {
        const value = entries.get(name);
        // Unlisted: env_file passes it as .env has it. Listed: the same variable from .env (checked
        // before start), or one compose sets on purpose.
        const reaches =
          value === undefined ||
          value.startsWith(`\${${name}:?`) ||
          value === `\${${name}}` ||
          SET_BY_COMPOSE.has(name);
        expect({ file, name, value, reaches }).toEqual({ file, name, value, reaches: true });
      }
      for (const name of entries.keys()) expect(documented).toContain(name);
    });
  }

  it('the .env example of the guide has every variable compose requires', () => {
    const example = /cat > \.env <<ENV\n([\s\S]*?)\nENV/.exec(deployment)?.[1] ?? '';
    const required = [...compose.matchAll(/\$\{([A-Z_]+):\?/g)].map((match) => match[1] as string);
    expect(required).toContain('BASECAMP_CONTACT');
    for (const name of new Set(required)) expect(example).toMatch(new RegExp(`^${name}=`, 'm'));
  });

  it('the image installs the pnpm of packageManager with npm, not corepack', () => {
    const packageManager = (
      JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { packageManager: string }
    ).packageManager;
    expect(dockerfile).not.toMatch(/^RUN .*corepack/m);
    expect(dockerfile).toContain(`RUN npm install --global --no-audit --no-fund ${packageManager}\n`);
  });
});

describe('what the image passes to the server', () => {
  const deployment = readFileSync(`${root}docs/deployment.md`, 'utf8');
  const execForm = (instruction: string) =>
    JSON.parse(new RegExp(`^${instruction} (\\[.*\\])$`, 'm').exec(dockerfile)?.[1] ?? 'null') as
      | string[]
      | null;
  /** The page's `--flag` / `VARIABLE` pairs (a flag wins over its variable). */
  const pairs = new Map(
    [...deployment.matchAll(/`(--[a-z-]+)` \/ `([A-Z][A-Z0-9_]*)`/g)].map((match) => [match[1], match[2]]),
  );

  it('the entry point is node and the bin, nothing between them that could pick variables', () => {
    expect(execForm('ENTRYPOINT')).toEqual(['node', '/app/bin/x-mcp-server.js']);
    expect(dockerfile).not.toMatch(/^(?:ENTRYPOINT|CMD) (?!\[)/m);
    expect(dockerfile).not.toMatch(/\benv -i\b/);
  });

  it('the default command sets no flag over a variable compose or .env is meant to set, and the page names the ones it fixes', () => {
    const command = execForm('CMD') ?? [];
    expect(command).toEqual(expect.arrayContaining(['--http', '--auth', 'oauth']));
    expect(pairs.get('--store')).toBe('MCP_STORE');
    const shadowed = command.filter((arg) => pairs.has(arg)).map((flag) => pairs.get(flag));
    // --auth oauth is what compose deploys; --public-url and --store would hide what compose sets.
    expect(shadowed).toEqual(['MCP_AUTH']);
    expect(command).not.toContain('--public-url');
    expect(command).not.toContain('--store');
    const docker = deployment.slice(deployment.indexOf('### Docker Compose')).replace(/\s+/g, ' ');
    expect(docker).toContain(`Its default command is \`${command.join(' ')}\``);
    expect(docker).toContain('win over their variables (`MCP_AUTH`, `PORT`)');
    // The page's way to serve another provider: the same command with a longer --providers.
    const override = /give the `x-server` block `command: (\[[^\]]*\])`/.exec(docker)?.[1] ?? 'null';
    const providers = command.indexOf('--providers');
    expect(JSON.parse(override)).toEqual([
      ...command.slice(0, providers + 1),
      `${command[providers + 1]},bbj-rag`,
      ...command.slice(providers + 2),
    ]);
    // The compose files say what the image runs.
    for (const text of [compose, readFileSync(`${root}compose.single.yaml`, 'utf8')]) {
      expect(text).toContain(`# The image's default command: ${command.join(' ')}\n`);
    }
  });
});
