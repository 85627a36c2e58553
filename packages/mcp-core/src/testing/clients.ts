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

/** This process's environment with `overrides` applied; an `undefined` override removes the variable. */
export function childEnv(overrides: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries({ ...process.env, ...overrides })) {
    if (value !== undefined) env[key] = value;
  }
  return env;
}
