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
