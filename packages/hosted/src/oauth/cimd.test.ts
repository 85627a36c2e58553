import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthBrowser, TestOAuthClient } from '../testing/oauth-browser.js';
import { cimdFetchAllowed } from './authorization-server.js';
import { ALICE, type Hosted, REDIRECT, signIn, startHosted } from './fixture.js';

// Client ID Metadata Documents: the documents live on "client.example" (HTTPS in real life);
// the authorization server's fetch is routed to a loopback server that plays that host.
const DOCUMENT = 'https://client.example/oauth/metadata.json';
const documents: Record<string, unknown> = {
  '/oauth/metadata.json': {
    client_id: DOCUMENT,
    client_name: 'Metadata Client',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  },
  '/oauth/evil-redirect.json': {
    client_id: 'https://client.example/oauth/evil-redirect.json',
    redirect_uris: [REDIRECT, 'https://evil.example/callback'],
    token_endpoint_auth_method: 'none',
  },
  '/oauth/wrong-id.json': {
    client_id: 'https://client.example/oauth/something-else.json',
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: 'none',
  },
};

let env: Hosted;
let site: Server;
const fetched: string[] = [];
beforeAll(async () => {
  site = createServer((req, res) => {
    const body = documents[req.url ?? ''];
    res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    res.end(body ? JSON.stringify(body) : '{}');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const local = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  env = await startHosted({
    cimd: {
      hosts: ['client.example', '127.0.0.1'],
      fetch: (url, init) => {
        const target = new URL(String(url));
        fetched.push(target.href);
        if (target.hostname !== 'client.example') return Promise.reject(new Error('unexpected host'));
        const { dispatcher: _ignored, ...rest } = (init ?? {}) as RequestInit & { dispatcher?: unknown };
        return fetch(`${local}${target.pathname}`, rest);
      },
    },
  });
});
afterAll(async () => {
  await env.close();
  await new Promise((resolve) => site.close(resolve));
});

function authorizeWith(clientId: string) {
  const url = new URL('/authorize', env.origin);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    scope: 'mcp',
  }).toString();
  return new OAuthBrowser({ stopAt: (target) => target.href.startsWith(REDIRECT) }).open(url);
}

describe('Client ID Metadata Documents', () => {
  it('advertises CIMD next to the none auth method', async () => {
    const metadata = (await (
      await fetch(new URL('/.well-known/oauth-authorization-server', env.origin))
    ).json()) as Record<string, unknown>;
    expect(metadata.client_id_metadata_document_supported).toBe(true);
    expect(metadata.token_endpoint_auth_methods_supported).toContain('none');
  });

  it('signs in a client identified by its metadata URL, without registering', async () => {
    const oauth = new TestOAuthClient(REDIRECT);
    oauth.clientMetadataUrl = DOCUMENT;
    const alice = await signIn(env, ALICE, { oauth });
    try {
      expect(oauth.clientInformation()?.client_id).toBe(DOCUMENT);
      expect(fetched).toContain(DOCUMENT);
      const result = await alice.client.callTool({ name: 'whoami', arguments: {} });
      expect(result.isError).toBeFalsy();
    } finally {
      await alice.close();
    }
  });

  it('never fetches a document from a host outside the list, or from an address', async () => {
    fetched.length = 0;
    for (const clientId of [
      'https://evil.example/oauth/metadata.json',
      'https://127.0.0.1/oauth/metadata.json',
    ]) {
      const page = await authorizeWith(clientId);
      expect(page.status).toBe(400);
      expect(page.url.href.startsWith(REDIRECT)).toBe(false);
    }
    expect(fetched).toEqual([]);
    expect(cimdFetchAllowed('https://client.example:8443/x', ['client.example'])).toBe(false);
    expect(cimdFetchAllowed('http://client.example/x', ['client.example'])).toBe(false);
    expect(cimdFetchAllowed('https://[::1]/x', ['[::1]', '::1'])).toBe(false);
  });

  it('refuses a document whose redirect URI breaks the host policy, or whose client_id differs', async () => {
    for (const path of ['/oauth/evil-redirect.json', '/oauth/wrong-id.json']) {
      const page = await authorizeWith(`https://client.example${path}`);
      expect(page.status).toBe(400);
      expect(page.url.href.startsWith(REDIRECT)).toBe(false);
    }
  });
});
