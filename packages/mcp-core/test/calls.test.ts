import { ProtocolError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger, defineTool, ERROR_CODES, ToolRegistry, toolSuccess } from '../src/index.js';
import { type ConnectedClient, connectInMemory, errorBody, resultData } from '../src/testing/index.js';
import { createFixtureProvider, slowEvents } from './fixtures/tools.js';

const logLines: string[] = [];
let connection: ConnectedClient;
let registry: ToolRegistry;

beforeAll(async () => {
  registry = new ToolRegistry({ logger: createLogger('test', { write: (line) => logLines.push(line) }) }).use(
    createFixtureProvider(),
  );
  connection = await connectInMemory(registry, { name: 'calls-test', version: '9.9.9' });
});
afterAll(() => connection.close());

describe('tools/list', () => {
  it('equals toMcpTools()', async () => {
    const { tools } = await connection.client.listTools();
    expect(tools).toEqual(registry.toMcpTools());
    expect(tools.map((tool) => tool.name)).toEqual(registry.getAll().map((tool) => tool.name));
  });

  it('carries the provider instructions', () => {
    expect(connection.client.getInstructions()).toBe('Fixture tools for the core tests.');
  });
});

describe('tools/call results', () => {
  it('returns plain text for a string result', async () => {
    const result = await connection.client.callTool({ name: 'echo', arguments: { text: 'héllo' } });
    expect(result).toEqual({ content: [{ type: 'text', text: 'héllo' }] });
  });

  it('returns structuredContent and the same JSON as text for a tool with an output schema', async () => {
    const result = await connection.client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
    expect(result.structuredContent).toEqual({ sum: 42 });
    expect(resultData(result)).toEqual({ sum: 42 });
    expect(result.isError).toBeFalsy();
  });

  it('answers invalid arguments with INVALID_INPUT listing each bad field', async () => {
    const result = await connection.client.callTool({ name: 'add', arguments: { a: 'two', b: 5000, c: 1 } });
    const body = errorBody(result);
    expect(body.error_code).toBe('INVALID_INPUT');
    expect(body.retryable).toBe(false);
    expect(body.fields).toEqual([
      { field: 'a', message: 'Invalid input: expected number, received string' },
      { field: 'b', message: expect.stringContaining('<=1000') },
      { field: 'c', message: 'unknown field' },
    ]);
    expect(body.message).toMatch(/^Invalid arguments for add: a: .*; b: .*; c: unknown field/);
  });

  it('does not echo a huge unknown key back whole', async () => {
    const body = errorBody(
      await connection.client.callTool({ name: 'echo', arguments: { text: 'a', ['k'.repeat(5000)]: 1 } }),
    );
    expect(body.error_code).toBe('INVALID_INPUT');
    expect(JSON.stringify(body).length).toBeLessThan(500);
  });

  it('treats missing arguments as an empty object', async () => {
    const body = errorBody(await connection.client.callTool({ name: 'echo' }));
    expect(body).toMatchObject({ error_code: 'INVALID_INPUT', fields: [{ field: 'text' }] });
  });

  it.each(ERROR_CODES.filter((code) => code !== 'INTERNAL_ERROR'))(
    'maps a thrown %s onto its result',
    async (code) => {
      const result = await connection.client.callTool({ name: 'fail', arguments: { code } });
      expect(result.isError).toBe(true);
      expect(result.content).toHaveLength(1);
      const body = errorBody(result);
      expect(body.error_code).toBe(code);
      expect(body.retryable).toBe(code === 'RATE_LIMITED' || code === 'UPSTREAM_UNAVAILABLE');
      if (code === 'RATE_LIMITED') expect(body.retry_after_ms).toBe(1500);
      if (code === 'CONFLICT') expect(body.hint).toBe('Fetch it again.');
    },
  );

  it('maps a thrown INTERNAL_ERROR onto its result', async () => {
    const body = errorBody(
      await connection.client.callTool({ name: 'fail', arguments: { code: 'INTERNAL_ERROR' } }),
    );
    expect(body).toEqual({
      error_code: 'INTERNAL_ERROR',
      message: 'Failed with INTERNAL_ERROR.',
      retryable: false,
    });
  });

  it('hides an unexpected exception behind INTERNAL_ERROR and logs the detail to the logger', async () => {
    logLines.length = 0;
    const result = await connection.client.callTool({ name: 'fail', arguments: { code: 'crash' } });
    const body = errorBody(result);
    expect(body.error_code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(result)).not.toMatch(/secret detail|\.token|line 42|at /);
    const reference = /\(ref ([0-9a-f]{8})\)/.exec(body.message)?.[1];
    expect(reference).toBeDefined();
    const logged = logLines.join('');
    expect(logged).toContain(`ref ${reference}`);
    expect(logged).toContain('secret detail');
  });

  it('turns output that breaks the output schema into INTERNAL_ERROR', async () => {
    logLines.length = 0;
    const body = errorBody(await connection.client.callTool({ name: 'bad_output', arguments: {} }));
    expect(body.error_code).toBe('INTERNAL_ERROR');
    expect(logLines.join('')).toContain('does not match its outputSchema');
  });

  it('sends custom text beside structuredContent, and still checks a prebuilt result against the schema', async () => {
    const report = (count: unknown) =>
      defineTool({
        name: 'report',
        description: 'Returns a Markdown report and the same data structured.',
        inputSchema: z.strictObject({}),
        outputSchema: z.object({ count: z.int() }),
        annotations: {
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: false,
        },
        handler: () => toolSuccess({ count }, { text: `# Report\n\n${String(count)} items` }),
      });
    const good = await new ToolRegistry().register(report(3)).call('report', {});
    expect(good.content).toEqual([{ type: 'text', text: '# Report\n\n3 items' }]);
    expect(good.structuredContent).toEqual({ count: 3 });
    const quietLog = createLogger('test', { level: 'silent' });
    const bad = await new ToolRegistry({ logger: quietLog }).register(report('three')).call('report', {});
    expect(errorBody(bad).error_code).toBe('INTERNAL_ERROR');
  });

  it('answers an unknown tool with JSON-RPC -32602', async () => {
    const error = await connection.client
      .callTool({ name: 'no_such_tool', arguments: {} })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe(-32602);
  });

  it('reports the in-process transport to handlers', async () => {
    const data = resultData<{ request: unknown }>(
      await connection.client.callTool({ name: 'whoami', arguments: {} }),
    );
    expect(data.request).toEqual({ transport: 'in-process' });
  });
});

describe('progress, timeout and cancellation', () => {
  it('sends progress notifications when the client asks for them', async () => {
    const progress: unknown[] = [];
    const result = await connection.client.callTool(
      { name: 'slow', arguments: { ms: 10 } },
      { onprogress: (update) => progress.push(update) },
    );
    expect(resultData(result)).toEqual({ waited: 10 });
    expect(progress).toEqual([
      { progress: 0, total: 10, message: 'started' },
      { progress: 10, total: 10, message: 'done' },
    ]);
  });

  it('aborts a call that runs past its time budget and says so', async () => {
    slowEvents.length = 0;
    const fast = new ToolRegistry({ timeoutMs: 50 }).use(createFixtureProvider(), { include: ['add'] });
    const started = Date.now();
    const slowTool = {
      ...createFixtureProvider().tools.find((tool) => tool.name === 'slow')!,
      timeoutMs: undefined,
    };
    fast.register(slowTool);
    const result = await fast.call('slow', { ms: 10_000 });
    const body = errorBody(result);
    expect(body).toMatchObject({ error_code: 'UPSTREAM_UNAVAILABLE', retryable: true, timeout_ms: 50 });
    expect(body.message).toContain('did not finish within 50 ms');
    expect(slowEvents).toEqual(['aborted']);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('times out a handler that never settles and ignores its signal', async () => {
    const stuck = defineTool({
      name: 'stuck',
      description: 'Never answers and never looks at its signal.',
      inputSchema: z.strictObject({}),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      timeoutMs: 30,
      handler: () => new Promise<never>(() => {}),
    });
    const body = errorBody(await new ToolRegistry().register(stuck).call('stuck', {}));
    expect(body).toMatchObject({ error_code: 'UPSTREAM_UNAVAILABLE', timeout_ms: 30 });
  });

  it('aborts the handler signal when the client cancels', async () => {
    slowEvents.length = 0;
    const controller = new AbortController();
    const call = connection.client.callTool(
      { name: 'slow', arguments: { ms: 10_000 } },
      { signal: controller.signal },
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort('user pressed stop');
    await expect(call).rejects.toThrow();
    await expect.poll(() => slowEvents).toEqual(['aborted']);
  });
});
