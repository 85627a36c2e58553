// Forge's tools on your own MCP server (SDK v2), next to tools of your own, served over stdio.
// Install: npm install @x/mcp-core @x/mcp-forge @modelcontextprotocol/server
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { mountTools, ToolRegistry } from '@x/mcp-core';
import { createForgeProvider } from '@x/mcp-forge';

const tools = new ToolRegistry().use(createForgeProvider(), { prefix: 'forge_', readOnly: true });

const server = new McpServer(
  { name: 'my-server', version: '1.0.0' },
  { instructions: tools.instructions ?? '' },
);
// ... server.registerTool(...) for your own tools ...
mountTools(server, tools);
await server.connect(new StdioServerTransport());
