// Basecamp's tools, read-only and prefixed, on your own MCP server (SDK v2), over stdio. The
// token comes from `basecamp-mcp login` (or BASECAMP_ACCESS_TOKEN + BASECAMP_ACCOUNT_ID).
// Install: npm install @x/mcp-core @x/mcp-basecamp @modelcontextprotocol/server
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { createBasecampProvider } from '@x/mcp-basecamp';
import { mountTools, ToolRegistry } from '@x/mcp-core';

const tools = new ToolRegistry().use(
  createBasecampProvider({ accountId: '999999999', toolsets: ['default', 'cards'] }),
  { prefix: 'basecamp_', readOnly: true },
);

const server = new McpServer(
  { name: 'my-server', version: '1.0.0' },
  { instructions: tools.instructions ?? '' },
);
mountTools(server, tools);
await server.connect(new StdioServerTransport());
