import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { ToolSource } from '../mount.js';
import { createMcpServer } from '../server.js';
import type { Surface } from '../surface/search.js';
import type { TaskHost } from '../tasks.js';

export interface ConnectedClient {
  client: Client;
  close(): Promise<void>;
}

const CLIENT_INFO = { name: 'x-mcp-core-testing', version: '0.0.0' };

/** A real MCP client talking to a server for `registry` over an in-memory transport. */
export async function connectInMemory(
  registry: ToolSource,
  options: {
    name?: string;
    version?: string;
    instructions?: string;
    surface?: Surface;
    /** Ask the person to confirm destructive calls (when this client can elicit). Default `true`. */
    confirm?: boolean;
    /** The client to connect, e.g. one that declares elicitation and answers it. Default: a plain one. */
    client?: Client;
    /** Runs tools that declare `task` as tasks when the client asks, with this host's state. */
    tasks?: TaskHost;
  } = {},
): Promise<ConnectedClient> {
  const server = createMcpServer({
    name: options.name ?? 'test-server',
    version: options.version ?? '0.0.0',
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    registry,
    transport: 'in-process',
    ...(options.surface ? { surface: options.surface } : {}),
    ...(options.confirm === false ? { confirm: false } : {}),
    ...(options.tasks ? { tasks: options.tasks } : {}),
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = options.client ?? new Client(CLIENT_INFO);
  await client.connect(clientTransport);
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

export interface SpawnedClient extends ConnectedClient {
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  pid: number | null;
}

/** Spawns a bin and connects a real MCP client to it over stdio. */
export async function spawnStdioClient(options: {
  command: string;
  args?: string[];
  /** Added to this process's environment; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** The client to connect, e.g. one that declares elicitation and answers it. Default: a plain one. */
  client?: Client;
}): Promise<SpawnedClient> {
  const transport = new StdioClientTransport({
    command: options.command,
    args: options.args ?? [],
    env: childEnv(options.env),
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = options.client ?? new Client(CLIENT_INFO);
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    pid: transport.pid,
    close: () => client.close(),
  };
}

/** A real MCP client over Streamable HTTP. */
export async function connectHttp(
  url: string,
  options: {
    token?: string;
    headers?: Record<string, string>;
    /** The client to connect, e.g. one that declares elicitation and answers it. Default: a plain one. */
    client?: Client;
  } = {},
): Promise<ConnectedClient> {
  const headers = {
    ...options.headers,
    ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
  };
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    ...(Object.keys(headers).length > 0 ? { requestInit: { headers } } : {}),
  });
  const client = options.client ?? new Client(CLIENT_INFO);
  await client.connect(transport);
  return { client, close: () => client.close() };
}

/** One 2026-07-28 request: the result, or a rejection with the JSON-RPC error's code, message and data. */
export type ModernRequest = (
  method: string,
  params?: Record<string, unknown>,
) => Promise<Record<string, unknown>>;

/**
 * A 2026-07-28 client over stateless HTTP written out by hand, as the conformance suite's is:
 * every request carries the protocol version and `capabilities` in `_meta`, and the routing
 * headers (`Mcp-Method`; `Mcp-Name` from `params.name`, `params.uri` or `params.taskId`). For what
 * the SDK's client cannot do, e.g. receive a task (`resultType: "task"`).
 */
export function modernHttpClient(
  url: string,
  options: { capabilities?: Record<string, unknown>; token?: string } = {},
): ModernRequest {
  let id = 0;
  return async (method, params = {}) => {
    const name = [params.taskId, params.name, params.uri].find((value) => typeof value === 'string');
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...(name === undefined ? {} : { 'mcp-name': name as string }),
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: ++id,
        method,
        params: {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
            'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? {},
          },
        },
      }),
    });
    const body = (await response.json()) as {
      result?: Record<string, unknown>;
      error?: { code: number; message: string; data?: unknown };
    };
    if (body.error) throw Object.assign(new Error(body.error.message), body.error);
    if (!body.result) throw new Error(`No result in the answer to ${method} (HTTP ${response.status}).`);
    return body.result;
  };
}

/** This process's environment with `overrides` applied; an `undefined` override removes the variable. */
export function childEnv(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries({ ...process.env, ...overrides })) {
    if (value !== undefined) env[key] = value;
  }
  return env;
}
