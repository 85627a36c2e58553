// The BBj tools against the package's fake REST service, through a real MCP client (in memory):
// the way to test your own server that mounts them.
// Install: npm install --save-dev @x/mcp-core @x/mcp-bbj-rag @modelcontextprotocol/client
import assert from 'node:assert/strict';
import { createBbjRagProvider } from '@x/mcp-bbj-rag';
import { startFakeBbjRag } from '@x/mcp-bbj-rag/testing';
import { ToolRegistry } from '@x/mcp-core';
import { connectInMemory } from '@x/mcp-core/testing';

const fake = await startFakeBbjRag({ shape: 'legacy' });
const connection = await connectInMemory(new ToolRegistry().use(createBbjRagProvider({ apiUrl: fake.url })));
try {
  const result = await connection.client.callTool({ name: 'bbj_knowledge_status', arguments: {} });
  assert.equal(result.isError, undefined);
  assert.deepEqual(
    fake.requests.map((request) => `${request.method} ${request.path}`),
    ['GET /health', 'GET /stats'],
  );
  fake.update({ embedding: 'down' }); // search now answers 503, like a real outage
} finally {
  await connection.close();
  await fake.close();
}
