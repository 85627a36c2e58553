// The same on a server still on SDK v1 (@modelcontextprotocol/sdk): mountTools takes its McpServer too.
// Install: npm install @x/mcp-core @x/mcp-forge @modelcontextprotocol/sdk
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { mountTools, ToolRegistry } from '@x/mcp-core';
import { createForgeProvider } from '@x/mcp-forge';

const tools = new ToolRegistry().use(createForgeProvider(), { prefix: 'forge_' });

const server = new McpServer({ name: 'my-v1-server', version: '1.0.0' });
mountTools(server, tools);
await server.connect(new StdioServerTransport());
