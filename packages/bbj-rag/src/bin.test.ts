import {
  connectHttp,
  describeProviderBin,
  errorBody,
  resultText,
  spawnStdioClient,
  startHttpBin,
} from '@x/mcp-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binPath, compilers } from '../test/helpers.js';
import { SETTINGS_TABLE } from './environment.js';
import { type FakeBbjRag, startFakeBbjRag } from './testing/index.js';
import { VERSION } from './version.js';

let fake: FakeBbjRag;
beforeAll(async () => {
  fake = await startFakeBbjRag();
});
afterAll(() => fake.close());

// The checks every provider bin passes (@x/mcp-core/testing).
describeProviderBin({ bin: binPath, name: 'bbj-mcp', version: VERSION, table: SETTINGS_TABLE });

describe('bbj-mcp bin', () => {
  it('serves the three tools over stdio against the service named by BBJ_RAG_API_URL', async () => {
    const { client, stderr, close } = await spawnStdioClient({
      command: process.execPath,
      args: [binPath],
      env: { BBJ_RAG_API_URL: fake.url, BBJ_RAG_COMPILER_PATH: compilers.invalid, MCP_LOG_LEVEL: 'info' },
    });
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([
        'search_bbj_knowledge',
        'validate_bbj_syntax',
        'bbj_knowledge_status',
      ]);
      const before = fake.requests.length;
      const found = await client.callTool({
        name: 'search_bbj_knowledge',
        arguments: { query: 'window button event', generation: 'bbj-gui', limit: 3 },
      });
      expect(resultText(found)).toMatch(/^Found 3 results for: window button event \(/);
      expect(fake.requests[before]?.body).toEqual({
        query: 'window button event',
        limit: 3,
        generation: 'bbj_gui',
      });

      const checked = await client.callTool({ name: 'validate_bbj_syntax', arguments: { code: 'print "x' } });
      expect(checked.structuredContent).toMatchObject({ status: 'invalid', valid: false });
      expect(resultText(checked)).toContain('snippet.bbj: error at line 1');

      const status = await client.callTool({ name: 'bbj_knowledge_status', arguments: {} });
      expect(status.structuredContent).toMatchObject({ status: 'healthy', api_url: fake.url });
      expect(stderr()).not.toContain('snippet.bbj');
    } finally {
      await close();
    }
  });

  it('serves --sandbox against its own fake service, with the real compiler setting', async () => {
    const { client, stderr, close } = await spawnStdioClient({
      command: process.execPath,
      args: [binPath, '--sandbox'],
      env: { BBJ_RAG_API_URL: 'http://127.0.0.1:9', BBJ_RAG_COMPILER_PATH: compilers.missing },
    });
    try {
      const found = await client.callTool({
        name: 'search_bbj_knowledge',
        arguments: { query: 'DWC CSS styling', generation: 'dwc' },
      });
      expect(resultText(found)).toContain('## Result 1: Styling DWC controls with CSS classes');
      // No compiler is faked: without one, the sandbox says so.
      const checked = errorBody(
        await client.callTool({ name: 'validate_bbj_syntax', arguments: { code: 'print "x"' } }),
      );
      expect(checked.error_code).toBe('TOOL_NOT_ENABLED');
      expect(stderr()).toMatch(/sandbox: fake BBj RAG service at http:\/\/127\.0\.0\.1:\d+/);
    } finally {
      await close();
    }
  });

  it('serves stateless HTTP with --http --port 0', async () => {
    const server = await startHttpBin({
      command: process.execPath,
      args: [binPath, '--http', '--port', '0', '--sandbox', '--read-only'],
    });
    try {
      const { client, close } = await connectHttp(server.url);
      try {
        const { tools } = await client.listTools();
        expect(tools).toHaveLength(3);
        const result = await client.callTool({
          name: 'search_bbj_knowledge',
          arguments: { query: 'READ RECORD', limit: 1 },
        });
        expect(resultText(result)).toContain('## Result 1: OPEN, READ RECORD and WRITE RECORD');
        expect(result.structuredContent).toMatchObject({ count: 1 });
      } finally {
        await close();
      }
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
