// Scopes across two replicas on one Redis behind a round-robin proxy: a read-only sign-in, its
// refusals and its step-up may land on either replica, and every replica answers alike.
import { type FakeBasecamp, IDS, startFakeBasecamp } from '@x/mcp-basecamp/testing';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keyring } from '../crypto.js';
import { createStore } from '../store/create.js';
import type { KvStore } from '../store/kv.js';
import { type RedisServer, redisRequirement, startRedisServer } from '../testing/index.js';
import {
  ACCESS_WORDS,
  BOB,
  postToolsList,
  type Replica,
  type RoundRobinProxy,
  SECRET,
  signIn,
  startReplica,
  startRoundRobinProxy,
  stepUp,
} from './fixture.js';

const requirement = redisRequirement();
const COMPLETE = { name: 'basecamp_complete_todo', arguments: { todo_id: IDS.assignedTodo } };

describe('scopes on two replicas', () => {
  let redis: RedisServer | undefined;
  let fake: FakeBasecamp;
  let proxy: RoundRobinProxy;
  const stores: KvStore[] = [];
  const replicas: Replica[] = [];

  beforeAll(async () => {
    if (!('path' in requirement)) return;
    redis = await startRedisServer({ path: requirement.path });
    fake = await startFakeBasecamp();
    proxy = await startRoundRobinProxy();
    const keyring = Keyring.fromSecrets({ secret: SECRET });
    for (let index = 0; index < 2; index++) {
      const store = await createStore(redis.url);
      stores.push(store);
      const replica = await startReplica({ fake, store, keyring, publicUrl: proxy.origin });
      replicas.push(replica);
      proxy.upstreams.push(new URL(replica.http.url).origin);
    }
  });
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.http.close()));
    await Promise.all(stores.map((store) => store.close()));
    await proxy?.close();
    await fake?.close();
    await redis?.stop();
  });

  it('serves a read-only sign-in read tools on each replica, refuses writes on each, and steps up', async (context) => {
    if ('skip' in requirement) context.skip(requirement.skip);
    const env = { url: `${proxy.origin}/mcp`, fake };
    const bob = await signIn(env, BOB, { decision: 'read' });
    try {
      const token = (bob.oauth.tokens() as { access_token: string }).access_token;
      expect(decodeJwt(token).scope).toBe('mcp:read');
      for (const replica of replicas) {
        const text = await (await postToolsList(replica.http.url, token)).text();
        const listed = JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? text) as {
          result: { tools: Array<{ name: string; annotations?: { readOnlyHint?: boolean } }> };
        };
        expect(listed.result.tools.length).toBeGreaterThan(1);
        expect(listed.result.tools.filter((tool) => tool.annotations?.readOnlyHint !== true)).toEqual([]);
        const write = await fetch(replica.http.url, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: COMPLETE }),
        });
        expect(write.status).toBe(403);
        expect(write.headers.get('www-authenticate')).toContain(
          `scope="mcp:read mcp:write", resource_metadata="${proxy.origin}/.well-known/oauth-protected-resource/mcp"`,
        );
      }
      const { page } = await stepUp(env, bob, COMPLETE);
      expect(page.body).toContain(ACCESS_WORDS.write);
      const wider = (bob.oauth.tokens() as { access_token: string }).access_token;
      expect(decodeJwt(wider).scope).toBe('mcp:read mcp:write');
      for (let call = 0; call < 2; call++) {
        const result = await bob.client.callTool(COMPLETE);
        expect(result.isError).toBeFalsy();
      }
      // Both replicas served the flow.
      expect(proxy.counts.every((count) => count > 0)).toBe(true);
    } finally {
      await bob.close();
    }
  });
});
