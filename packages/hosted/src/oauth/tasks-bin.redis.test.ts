// A long tool call as a task across two real server processes (apps/server, --auth oauth) on one
// Redis: started through one replica, polled and read through the other, invisible to another user.
// And a question's answer (2026-07-28 input_required) brought back to the other replica.

import { type FakeBasecamp, startFakeBasecamp, TEMPLATE_ID } from '@x/mcp-basecamp/testing';
import { TASKS_EXTENSION } from '@x/mcp-core';
import { modernHttpClient } from '@x/mcp-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, redisRequirement, startRedisServer } from '../testing/index.js';
import { ALICE, BOB, type ReplicaBins, signIn, startReplicaBins } from './fixture.js';

const requirement = redisRequirement();
let redis: RedisServer | undefined;
let fake: FakeBasecamp;
let replicas: ReplicaBins | undefined;

beforeAll(async () => {
  if (!('path' in requirement)) return;
  redis = await startRedisServer({ path: requirement.path });
  fake = await startFakeBasecamp();
  replicas = await startReplicaBins({ store: redis.url, fake, env: { BASECAMP_TOOLSETS: 'all' } });
}, 60_000);

afterAll(async () => {
  await replicas?.stop();
  await fake?.close();
  await redis?.stop();
});

async function tokenOf(identity: typeof ALICE): Promise<string> {
  const signedIn = await signIn({ url: `${replicas?.proxy.origin}/mcp`, fake }, identity);
  await signedIn.close();
  return (signedIn.oauth.tokens() as { access_token: string }).access_token;
}

describe('tasks across replicas', () => {
  it('create_project_from_template: started on one replica, polled and read on the other', async (context) => {
    if ('skip' in requirement) return context.skip(requirement.skip);
    const [first, second] = (replicas as ReplicaBins).servers;
    const alice = await tokenOf(ALICE);
    const bob = await tokenOf(BOB);
    const capabilities = { extensions: { [TASKS_EXTENSION]: {} } };
    const onFirst = modernHttpClient(first?.url as string, { capabilities, token: alice });
    const onSecond = modernHttpClient(second?.url as string, { capabilities, token: alice });
    const created = await onFirst('tools/call', {
      name: 'basecamp_create_project_from_template',
      arguments: { template_id: TEMPLATE_ID, name: 'Launch across replicas' },
    });
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = created.taskId as string;
    // Another user never sees it, on either replica.
    const asBob = modernHttpClient(second?.url as string, { capabilities, token: bob });
    await expect(asBob('tasks/get', { taskId })).rejects.toThrow(`Unknown or expired task: ${taskId}`);
    // The construction is pending at the first look and completed at the next (2 s apart).
    let done: Record<string, unknown> = {};
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      done = await onSecond('tasks/get', { taskId });
      if (done.status !== 'working') break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(done).toMatchObject({
      status: 'completed',
      result: { structuredContent: { status: 'completed', project: { name: 'Launch across replicas' } } },
    });
  });
});

describe('questions across replicas', () => {
  it('a confirmation asked by one replica is answered on the other (one request-state key per fleet)', async (context) => {
    if ('skip' in requirement) return context.skip(requirement.skip);
    const [first, second] = (replicas as ReplicaBins).servers;
    const alice = await tokenOf(ALICE);
    const capabilities = { elicitation: { form: {} } };
    const onFirst = modernHttpClient(first?.url as string, { capabilities, token: alice });
    const onSecond = modernHttpClient(second?.url as string, { capabilities, token: alice });
    const created = await onFirst('tools/call', {
      name: 'basecamp_create_project',
      arguments: { name: 'Doomed across replicas' },
    });
    const project = (created.structuredContent as { id: number }).id;
    const call = {
      name: 'basecamp_trash_project',
      arguments: { project_id: project, confirm_name: 'Doomed across replicas' },
    };
    fake.resetLog();
    const asked = await onFirst('tools/call', call);
    expect(asked).toMatchObject({ resultType: 'input_required' });
    const [key] = Object.keys(asked.inputRequests as Record<string, unknown>);
    expect(fake.requests.filter((request) => request.method === 'DELETE')).toEqual([]);
    const answered = await onSecond('tools/call', {
      ...call,
      inputResponses: { [key as string]: { action: 'accept', content: {} } },
      ...(asked.requestState === undefined ? {} : { requestState: asked.requestState }),
    });
    expect(answered).toMatchObject({ structuredContent: { project_id: project, trashed: true } });
    expect(
      fake.requests.filter((request) => request.method === 'DELETE').map((request) => request.path),
    ).toEqual([`/${fake.accountId}/projects/${project}.json`]);
  });
});
