import { McpServer } from '@modelcontextprotocol/server';
import { RegistryView } from './access.js';
import { RoundStateCodec } from './ask.js';
import { callContext, mountTools, type ToolSource, toRegistry } from './mount.js';
import { SEARCH_INSTRUCTIONS, type Surface } from './surface/search.js';
import { type TaskHost, taskOwner } from './tasks.js';
import type { RequestInfo } from './tool.js';

export interface CreateMcpServerOptions {
  name: string;
  version: string;
  /** Shown to the model at initialization. Defaults to the instructions of the providers in the registry. */
  instructions?: string;
  /** What to serve; a `RegistryView` serves one request's narrowed view of a registry. */
  registry: ToolSource;
  /** Reported to handlers as `context.request.transport`. */
  transport?: RequestInfo['transport'];
  /** A server for one `tools/call` of this tool: see `MountOptions.only`. */
  only?: string;
  /** `search`: serve `search_tools`, `describe_tool` and `call_tool` instead of every tool. Default `list`. */
  surface?: Surface;
  /** Ask the person to confirm destructive calls when the client can: see `MountOptions.confirm`. Default `true`. */
  confirm?: boolean;
  /** Runs tools that declare `task` as tasks when the client asks: see `MountOptions.tasks`. */
  tasks?: TaskHost;
  /**
   * The key that signs the `requestState` carrying a call's earlier answers between 2026-07-28
   * rounds (`ToolContext.ask`): at least 32 characters, the same on every replica that may get a
   * retry. Default: a key random to this process (stdio, one HTTP replica).
   */
  requestStateKey?: string;
}

const codecs = new Map<string | undefined, RoundStateCodec>();

/** One codec per key in this process (a per-request server must not import a key each time). */
function roundStateCodec(key: string | undefined): RoundStateCodec {
  let codec = codecs.get(key);
  if (!codec) {
    codec = new RoundStateCodec(key);
    if (codecs.size < 16) codecs.set(key, codec);
  }
  return codec;
}

/** A v2 SDK `McpServer` serving the registry's tools. One instance serves one connection. */
export function createMcpServer(options: CreateMcpServerOptions): McpServer {
  const source = options.registry instanceof RegistryView ? options.registry : toRegistry(options.registry);
  const search = options.surface === 'search';
  const given = options.instructions ?? toRegistry(source).instructions;
  // On the search surface the model must learn that the tools it reads about are behind call_tool.
  const instructions = search
    ? given === undefined
      ? SEARCH_INSTRUCTIONS
      : `${given}\n\n${SEARCH_INSTRUCTIONS}`
    : given;
  const roundState = roundStateCodec(options.requestStateKey);
  const transport = options.transport ?? 'in-process';
  const server = new McpServer(
    { name: options.name, version: options.version },
    {
      // listChanged: tools can be added while serving (enable_toolset); a batch is one notification.
      capabilities: { tools: { listChanged: true } },
      debouncedNotificationMethods: ['notifications/tools/list_changed'],
      ...(instructions === undefined ? {} : { instructions }),
      // A requestState that fails its signature, has expired, or was issued to someone else is
      // answered -32602 before any handler runs; the handler gets the verified state.
      requestState: {
        verify: (state, ctx) => roundState.verify(state, taskOwner(callContext(ctx, transport).request)),
      },
    },
  );
  mountTools(server, source, {
    transport,
    roundState,
    ...(options.only === undefined ? {} : { only: options.only }),
    ...(search ? { surface: 'search' as const } : {}),
    ...(options.confirm === false ? { confirm: false } : {}),
    ...(options.tasks ? { tasks: options.tasks } : {}),
  });
  return server;
}
