// The demo: starts the example server the way an agent would (stdio, then HTTP) and drives
// it with a real MCP client, printing each exchange.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { connectHttp, spawnStdioClient } from '@x/mcp-core/testing';

const bin = fileURLToPath(new URL('./bin.js', import.meta.url));
const dim = (text: string) => (process.stdout.isTTY ? `\x1b[2m${text}\x1b[0m` : text);

type Client = Awaited<ReturnType<typeof spawnStdioClient>>['client'];

async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  const text = result.content
    .map((block) => (block.type === 'text' ? block.text : `[${block.type}]`))
    .join('\n');
  console.log(`\n→ ${name} ${JSON.stringify(args)}`);
  console.log(`${result.isError ? '✗ error' : '✓ ok'}  ${text}`);
  return result;
}

console.log('1) stdio: spawning `notes-mcp` and connecting an MCP client');
const stdio = await spawnStdioClient({ command: process.execPath, args: [bin] });
const info = stdio.client.getServerVersion();
console.log(`connected to ${info?.name} ${info?.version}`);
const { tools } = await stdio.client.listTools();
console.log(`\ntools/list → ${tools.length} tools`);
for (const tool of tools) {
  const kind = tool.annotations?.readOnlyHint
    ? 'read-only'
    : tool.annotations?.destructiveHint
      ? 'destructive'
      : 'writes';
  console.log(`  ${tool.name.padEnd(12)} ${dim(`[${kind}]`)} ${tool.description}`);
}
await call(stdio.client, 'create_note', {
  title: 'Ship mcp-core',
  body: 'Registry, errors, serving.',
  tags: ['work'],
});
await call(stdio.client, 'create_note', { title: 'Groceries', tags: ['home'] });
await call(stdio.client, 'list_notes', { tag: 'work' });
await call(stdio.client, 'get_note', { id: 'n1' });
console.log(dim('\nBad input and missing IDs come back as typed tool errors the model can act on:'));
await call(stdio.client, 'get_note', { id: 'n99' });
await call(stdio.client, 'create_note', { title: '', colour: 'red' });
await stdio.close();

console.log('\n2) HTTP: starting `notes-mcp --http --port 0` (stateless Streamable HTTP on 127.0.0.1)');
const server = spawn(process.execPath, [bin, '--http', '--port', '0'], {
  stdio: ['ignore', 'ignore', 'pipe'],
});
let stderr = '';
server.stderr.on('data', (chunk: Buffer) => {
  stderr += chunk.toString();
});
const deadline = Date.now() + 10_000;
let url: string | undefined;
while (!url && Date.now() < deadline) {
  url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
  if (!url) await new Promise((resolve) => setTimeout(resolve, 50));
}
if (!url) {
  server.kill();
  throw new Error(`The HTTP server did not start:\n${stderr}`);
}
const health = await fetch(new URL('/healthz', url));
console.log(`GET /healthz → ${health.status} ${await health.text()}`);
const http = await connectHttp(url);
await call(http.client, 'create_note', { title: 'Over HTTP', body: 'Each request is served statelessly.' });
await call(http.client, 'list_notes', {});
await http.close();
server.kill('SIGTERM');
const [code] = await once(server, 'exit');
console.log(`\nserver stopped (exit code ${code}). Demo complete.`);
