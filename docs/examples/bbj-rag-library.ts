// The BBj documentation tools on your own MCP server (SDK v2), over stdio.
// Install: npm install @x/mcp-core @x/mcp-bbj-rag @modelcontextprotocol/server
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { createBbjRagProvider } from '@x/mcp-bbj-rag';
import { mountTools, ToolRegistry } from '@x/mcp-core';

const tools = new ToolRegistry().use(
  createBbjRagProvider({
    apiUrl: 'http://localhost:10800',
    compilerPath: 'bbjcpl',
    compilerTimeoutSeconds: 10,
  }),
  { prefix: 'bbj_' },
);

const server = new McpServer(
  { name: 'my-server', version: '1.0.0' },
  { instructions: tools.instructions ?? '' },
);
mountTools(server, tools);
await server.connect(new StdioServerTransport());
