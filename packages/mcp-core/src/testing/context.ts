import { InMemoryTransport } from '@modelcontextprotocol/client';
import type { ToolSource } from '../mount.js';
import { createMcpServer } from '../server.js';
import { TaskHost } from '../tasks.js';

/**
 * Bytes per token of the estimate in every "tokens" figure: minified JSON Schema with English
 * descriptions runs at about 3.6 bytes a token in the tokenizers of the models clients use (prose
 * is nearer 4.5, punctuation-dense schema nearer 3). Good for comparing surfaces, not a bill.
 */
export const BYTES_PER_TOKEN = 3.6;

/** What a server's tool surface costs a model's context before any work starts. */
export interface ContextCost {
  tools: number;
  /**
   * The UTF-8 bytes of `JSON.stringify({ name, description, input_schema })` summed over the
   * tools: what the Messages API and function calling put in front of the model for each tool
   * (title, annotations and the output schema are not sent to the model).
   */
  modelVisibleBytes: number;
  /** `modelVisibleBytes / BYTES_PER_TOKEN`, rounded. */
  tokens: number;
  /** `tokens / tools`, rounded. */
  tokensPerTool: number;
  /** The whole `tools/list` result as sent, output schemas included. */
  toolsListBytes: number;
  /** The server instructions of the `initialize` result (clients put them in the system prompt). */
  instructionsBytes: number;
}

interface ListedTool {
  name: string;
  description?: string;
  inputSchema: unknown;
}

const byteLength = (value: unknown) =>
  new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value)).length;

/** The cost of a surface from its `tools/list` result and its instructions. */
export function contextCost(listed: { tools: readonly ListedTool[] }, instructions?: string): ContextCost {
  const modelVisibleBytes = listed.tools.reduce(
    (sum, tool) =>
      sum + byteLength({ name: tool.name, description: tool.description, input_schema: tool.inputSchema }),
    0,
  );
  const tools = listed.tools.length;
  return {
    tools,
    modelVisibleBytes,
    tokens: Math.round(modelVisibleBytes / BYTES_PER_TOKEN),
    tokensPerTool: tools === 0 ? 0 : Math.round(modelVisibleBytes / BYTES_PER_TOKEN / tools),
    toolsListBytes: byteLength(listed),
    instructionsBytes: instructions ? byteLength(instructions) : 0,
  };
}

/**
 * The context cost of serving `source` with the core's server, as a client sees it: `initialize`
 * and `tools/list` over an in-memory transport, the messages taken as sent (no client parses them).
 */
export async function measureContextCost(source: ToolSource): Promise<ContextCost> {
  // With a task host, as serveStdio and serveHttp serve: `tools/list` then names each tool's task support.
  const server = createMcpServer({
    name: 'context-cost',
    version: '0.0.0',
    registry: source,
    tasks: new TaskHost(),
  });
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  const answers = new Map<number, (message: { result?: unknown; error?: unknown }) => void>();
  client.onmessage = (message) => {
    const { id } = message as { id?: unknown };
    if (typeof id === 'number') answers.get(id)?.(message as { result?: unknown; error?: unknown });
  };
  await server.connect(serverSide);
  await client.start();
  const request = (id: number, method: string, params?: Record<string, unknown>) =>
    new Promise<unknown>((resolve, reject) => {
      answers.set(id, (message) =>
        message.error === undefined
          ? resolve(message.result)
          : reject(new Error(`${method}: ${JSON.stringify(message.error)}`)),
      );
      void client.send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    });
  try {
    const initialized = (await request(1, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'x-mcp-context-cost', version: '0.0.0' },
    })) as { instructions?: string };
    await client.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const listed = (await request(2, 'tools/list')) as { tools: ListedTool[] };
    return contextCost(listed, initialized.instructions);
  } finally {
    await client.close();
    await server.close();
  }
}
