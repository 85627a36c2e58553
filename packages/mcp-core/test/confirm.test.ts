import { Client } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  DESTRUCTIVE,
  defineTool,
  NotFoundError,
  observe,
  type ToolCallEnd,
  ToolRegistry,
} from '../src/index.js';
import { serveHttp } from '../src/node/index.js';
import { type ConnectedClient, connectHttp, connectInMemory, errorBody } from '../src/testing/index.js';

/** What the "upstream" of the fixture tool saw: the tables it dropped. */
let dropped: string[] = [];

const dropTable = defineTool({
  name: 'drop_table',
  description: 'Drops a table for good.',
  inputSchema: z.strictObject({
    table: z.string().describe('The table'),
    restore: z.boolean().default(false).describe('Restore it instead (nothing is lost)'),
  }),
  annotations: DESTRUCTIVE,
  confirm: (input) => {
    if (input.restore) return undefined;
    if (input.table === 'missing') throw new NotFoundError('Table missing was not found.');
    return `Drop table '${input.table}' and every row in it?`;
  },
  handler: (input) => {
    dropped.push(input.table);
    return input.restore ? `restored ${input.table}` : `dropped ${input.table}`;
  },
});

type Answer = 'accept' | 'decline' | 'cancel';

interface Asked {
  mode: unknown;
  message: unknown;
  requestedSchema: unknown;
}

/** A client that declares form elicitation and gives `answer`, remembering what it was asked. */
function elicitingClient(answer: Answer, options: { modern?: boolean } = {}) {
  const asked: Asked[] = [];
  const client = new Client(
    { name: 'confirm-test', version: '0.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      ...(options.modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
    },
  );
  client.setRequestHandler('elicitation/create', (request) => {
    const params = request.params as Record<string, unknown>;
    asked.push({ mode: params.mode, message: params.message, requestedSchema: params.requestedSchema });
    return answer === 'accept' ? { action: 'accept', content: {} } : { action: answer };
  });
  return { client, asked };
}

let connection: ConnectedClient | undefined;
afterEach(async () => {
  await connection?.close();
  connection = undefined;
  dropped = [];
});

const registry = () => new ToolRegistry().use({ id: 'db', version: '1.0.0', tools: [dropTable] });

/**
 * 2025-11-25: in memory, one connection. 2026-07-28: stateless Streamable HTTP (the SDK serves the
 * modern era from its serving entries), so every round is a request of its own.
 */
async function connectEra(
  modern: boolean,
  client: Client,
  options: { confirm?: boolean; surface?: 'search' } = {},
): Promise<ConnectedClient> {
  if (!modern) return connectInMemory(registry(), { client, ...options });
  const http = await serveHttp({
    name: 'confirm-test',
    version: '0.0.0',
    registry: registry(),
    port: 0,
    ...options,
  });
  const connected = await connectHttp(http.url, { client });
  return {
    client: connected.client,
    close: async () => {
      await connected.close();
      await http.close();
    },
  };
}
const call = (table: string, extra: Record<string, unknown> = {}) => {
  if (!connection) throw new Error('not connected');
  return connection.client.callTool({ name: 'drop_table', arguments: { table, ...extra } });
};

describe.each([
  { era: '2025-11-25 (elicitation/create)', modern: false },
  { era: '2026-07-28 (input_required, answered on retry)', modern: true },
])('a destructive call, client on $era', ({ modern }) => {
  it('asks the person the question, with accept/decline only, and runs on accept', async () => {
    const { client, asked } = elicitingClient('accept', { modern });
    connection = await connectEra(modern, client);
    const result = await call('orders');
    expect(result.content).toEqual([{ type: 'text', text: 'dropped orders' }]);
    expect(asked).toEqual([
      {
        mode: 'form',
        message: "Drop table 'orders' and every row in it?",
        requestedSchema: { type: 'object', properties: {} },
      },
    ]);
    expect(dropped).toEqual(['orders']);
  });

  it.each(['decline', 'cancel'] as const)(
    'on %s answers DECLINED and never runs the handler',
    async (answer) => {
      const { client, asked } = elicitingClient(answer, { modern });
      connection = await connectEra(modern, client);
      const result = await call('orders');
      expect(result.isError).toBe(true);
      const body = errorBody(result);
      expect(body).toMatchObject({ error_code: 'DECLINED', retryable: false });
      expect(body.message).toContain(answer === 'decline' ? 'declined' : 'dismissed');
      expect(body.message).toContain('nothing was changed');
      expect(asked).toHaveLength(1);
      expect(dropped).toEqual([]);
    },
  );

  it('asks nothing when the question is not needed (confirm gives undefined)', async () => {
    const { client, asked } = elicitingClient('decline', { modern });
    connection = await connectEra(modern, client);
    const result = await call('orders', { restore: true });
    expect(result.content).toEqual([{ type: 'text', text: 'restored orders' }]);
    expect(asked).toEqual([]);
  });

  it('answers an error of the question itself without asking', async () => {
    const { client, asked } = elicitingClient('accept', { modern });
    connection = await connectEra(modern, client);
    const result = await call('missing');
    expect(errorBody(result)).toMatchObject({ error_code: 'NOT_FOUND' });
    expect(asked).toEqual([]);
    expect(dropped).toEqual([]);
  });

  it('asks nothing with confirm: false (--no-confirm)', async () => {
    const { client, asked } = elicitingClient('decline', { modern });
    connection = await connectEra(modern, client, { confirm: false });
    const result = await call('orders');
    expect(result.content).toEqual([{ type: 'text', text: 'dropped orders' }]);
    expect(asked).toEqual([]);
  });

  it('asks through call_tool on the search surface', async () => {
    const { client, asked } = elicitingClient('decline', { modern });
    connection = await connectEra(modern, client, { surface: 'search' });
    const result = await connection.client.callTool({
      name: 'call_tool',
      arguments: { name: 'drop_table', arguments: { table: 'orders' } },
    });
    expect(errorBody(result)).toMatchObject({ error_code: 'DECLINED' });
    expect(asked).toHaveLength(1);
    expect(dropped).toEqual([]);
  });

  it("keeps today's behaviour for a client without elicitation", async () => {
    const client = new Client(
      { name: 'plain', version: '0.0.0' },
      modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
    );
    connection = await connectEra(modern, client);
    const result = await call('orders');
    expect(result.content).toEqual([{ type: 'text', text: 'dropped orders' }]);
    expect(dropped).toEqual(['orders']);
  });
});

describe('which elicitation capability asks', () => {
  it.each<{ declared: Record<string, Record<string, never>>; asks: boolean }>([
    { declared: {}, asks: true },
    { declared: { form: {}, url: {} }, asks: true },
    { declared: { url: {} }, asks: false },
  ])('elicitation $declared: asked $asks', async ({ declared, asks }) => {
    const asked: unknown[] = [];
    const client = new Client(
      { name: 'modes', version: '0.0.0' },
      { capabilities: { elicitation: declared } },
    );
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params);
      return { action: 'decline' };
    });
    connection = await connectInMemory(registry(), { client });
    const result = await call('orders');
    expect(asked).toHaveLength(asks ? 1 : 0);
    expect(dropped).toEqual(asks ? [] : ['orders']);
    expect(result.isError ?? false).toBe(asks);
  });
});

describe('a 2025-11-25 client over stateless HTTP', () => {
  it("is not asked (no connection carries the question) and gets today's answer", async () => {
    const { client, asked } = elicitingClient('decline');
    const http = await serveHttp({ name: 'confirm-test', version: '0.0.0', registry: registry(), port: 0 });
    const connected = await connectHttp(http.url, { client });
    connection = {
      client,
      close: async () => {
        await connected.close();
        await http.close();
      },
    };
    const result = await call('orders');
    expect(result.content).toEqual([{ type: 'text', text: 'dropped orders' }]);
    expect(asked).toEqual([]);
  });
});

describe('the answer is bound to the call', () => {
  it('asks again, under another key, when the arguments differ', async () => {
    const tools = registry();
    const { pendingInput } = await import('../src/execute.js');
    const channel = (answers: Record<string, unknown>) => ({
      can: () => true,
      known: (key: string) => answers[key],
    });
    const first = await tools.call('drop_table', { table: 'orders' }, { input: channel({}) });
    const other = await tools.call('drop_table', { table: 'users' }, { input: channel({}) });
    const key = Object.keys(pendingInput(first)?.questions ?? {})[0];
    expect(key).toMatch(/^confirm_[0-9a-f]{16}$/);
    expect(Object.keys(pendingInput(other)?.questions ?? {})).not.toEqual([key]);
    // An accept given for orders is no answer for users: asked again, nothing dropped.
    const acceptOrders = channel({ [key as string]: { action: 'accept', content: {} } });
    const users = await tools.call('drop_table', { table: 'users' }, { input: acceptOrders });
    expect(Object.values(pendingInput(users)?.questions ?? {})).toEqual([
      expect.objectContaining({
        params: expect.objectContaining({ message: "Drop table 'users' and every row in it?" }),
      }),
    ]);
    expect(dropped).toEqual([]);
    const orders = await tools.call('drop_table', { table: 'orders' }, { input: acceptOrders });
    expect(orders.content).toEqual([{ type: 'text', text: 'dropped orders' }]);
    expect(dropped).toEqual(['orders']);
  });

  it('reports a round that asked as input_required, not ok', async () => {
    const outcomes: string[] = [];
    const stop = observe({
      toolCall: () => ({ end: (end: ToolCallEnd) => outcomes.push(end.outcome) }),
    });
    try {
      const { client } = elicitingClient('decline');
      connection = await connectInMemory(registry(), { client });
      await call('orders');
    } finally {
      stop();
    }
    expect(outcomes).toEqual(['input_required', 'DECLINED']);
  });
});
