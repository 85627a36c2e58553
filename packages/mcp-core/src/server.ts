import { McpServer } from '@modelcontextprotocol/server';
import { RegistryView } from './access.js';
import { mountTools, type ToolSource, toRegistry } from './mount.js';
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
}

/** A v2 SDK `McpServer` serving the registry's tools. One instance serves one connection. */
export function createMcpServer(options: CreateMcpServerOptions): McpServer {
  const source = options.registry instanceof RegistryView ? options.registry : toRegistry(options.registry);
  const instructions = options.instructions ?? toRegistry(source).instructions;
  const server = new McpServer(
    { name: options.name, version: options.version },
    {
      // listChanged: tools can be added while serving (enable_toolset); a batch is one notification.
      capabilities: { tools: { listChanged: true } },
      debouncedNotificationMethods: ['notifications/tools/list_changed'],
      ...(instructions === undefined ? {} : { instructions }),
    },
  );
  mountTools(server, source, {
    transport: options.transport ?? 'in-process',
    ...(options.only === undefined ? {} : { only: options.only }),
  });
  return server;
}
