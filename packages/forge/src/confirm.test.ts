import { Client } from '@modelcontextprotocol/client';
import { ToolRegistry } from '@x/mcp-core';
import { type ConnectedClient, connectInMemory, errorBody } from '@x/mcp-core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createForgeProvider } from './index.js';
import { type FakeForge, startFakeForge } from './testing/index.js';

let forge: FakeForge;
let connection: ConnectedClient;
let asked: string[];

beforeEach(async () => {
  forge = await startFakeForge();
  asked = [];
  const client = new Client(
    { name: 'forge-confirm-test', version: '0.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler('elicitation/create', (request) => {
    asked.push(String((request.params as { message?: unknown }).message));
    return { action: 'decline' };
  });
  const provider = createForgeProvider({
    apiUrl: forge.url,
    accessToken: forge.accessToken,
    teamId: forge.teamId,
  });
  connection = await connectInMemory(new ToolRegistry().use(provider), { client });
});
afterEach(async () => {
  await connection.close();
  await forge.close();
});

const call = (name: string, args: Record<string, unknown>) =>
  connection.client.callTool({ name, arguments: args });
const writes = () => forge.requests.filter((request) => request.method !== 'GET');

describe('confirmations of destructive Forge tools (a person who declines)', () => {
  it('asks before moving a ticket back, and sends no change', async () => {
    const result = await call('update_ticket_status', { ticketId: 'FOR-1', status: 'refined' });
    expect(errorBody(result)).toMatchObject({ error_code: 'DECLINED' });
    expect(asked).toEqual([
      "Move Forge ticket FOR-1 'Add password reset by email' back from 'approved' to 'refined'? Forge can clear what it generated since.",
    ]);
    expect(writes()).toEqual([]);
  });

  it('does not ask to move a ticket forward', async () => {
    await call('update_ticket_status', { ticketId: 'FOR-1', status: 'executing' });
    expect(asked).toEqual([]);
    expect(writes().map((request) => request.method)).toEqual(['PATCH']);
  });

  it('asks before replacing the review, and sends nothing', async () => {
    const result = await call('submit_review_session', {
      ticketId: 'FOR-1',
      qaItems: [{ question: 'Which email provider?', answer: 'Postmark' }],
    });
    expect(errorBody(result)).toMatchObject({ error_code: 'DECLINED' });
    expect(asked).toEqual([
      "Send 1 review answer for Forge ticket FOR-1? They replace any earlier review, and the ticket moves to 'refined'.",
    ]);
    expect(writes()).toEqual([]);
  });
});
