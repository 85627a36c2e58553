// The Context Forge tools on your own MCP server (SDK v2), and the store they use, on their own.
// Install: npm install @x/mcp-core @x/mcp-context-forge @modelcontextprotocol/server
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { buildContext, createContextForgeProvider, ProjectStore } from '@x/mcp-context-forge';
import { mountTools } from '@x/mcp-core';

const dataDir = '/path/to/dir'; // holds the desktop app's projects.json

// The library: read the projects and build one's context, as the app does.
const store = new ProjectStore({ dataDir });
const [project] = await store.list();
if (project) console.error(await buildContext(project));

// The tools, prompts and resources on a server.
const server = new McpServer({ name: 'my-server', version: '1.0.0' });
mountTools(server, createContextForgeProvider({ dataDir }));
await server.connect(new StdioServerTransport());
