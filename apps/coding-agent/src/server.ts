// Library use: your own MCP server (the official SDK) with our Forge and Context Forge tools
// mounted on it, next to any tools of your own. This is the whole program.
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { createContextForgeProvider } from '@x/mcp-context-forge';
import { mountTools, ToolRegistry } from '@x/mcp-core';
import { createForgeProvider } from '@x/mcp-forge';

const tools = new ToolRegistry()
  .use(createForgeProvider(), { prefix: 'forge_' })
  .use(createContextForgeProvider(), { prefix: 'cf_' });

const server = new McpServer(
  { name: 'coding-agent', version: '1.0.0' },
  { instructions: tools.instructions ?? '' },
);
mountTools(server, tools);
await server.connect(new StdioServerTransport());
