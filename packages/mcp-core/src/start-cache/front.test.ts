import { mkdtempSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryTransport, type JSONRPCMessage, McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import {
  cacheableArgs,
  changedFile,
  negotiate,
  parseEntry,
  plainInitializeParams,
  startKey,
} from './front.js';
import { legacyVersions } from './session.js';
import { ENTRY_FORMAT, type StartCacheEntry } from './shared.js';

/** What a real SDK server answers to one `initialize` with these params. */
async function sdkInitialize(
  params: unknown,
): Promise<{ result?: { protocolVersion: string }; error?: unknown }> {
  const server = new McpServer({ name: 'probe', version: '1.0.0' }, { capabilities: { tools: {} } });
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  const answer = new Promise<JSONRPCMessage>((resolve) => {
    client.onmessage = resolve;
  });
  await server.connect(serverSide);
  await client.start();
  await client.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params } as JSONRPCMessage);
  const message = (await answer) as { result?: { protocolVersion: string }; error?: unknown };
  await server.close();
  return message;
}

const clientInfo = { name: 'c', version: '1' };

describe('start cache front', () => {
  it('serves only plain stdio starts', () => {
    expect(cacheableArgs([])).toBe(true);
    expect(cacheableArgs(['--read-only', '--include', 'list_*'])).toBe(true);
    for (const args of [
      ['login'],
      ['--http'],
      ['--port=1', '--http'],
      ['-h'],
      ['--version'],
      ['--sandbox'],
    ]) {
      expect(cacheableArgs(args), args.join(' ')).toBe(false);
    }
  });

  it('keys a start by launcher, arguments, working directory and every environment variable', () => {
    const base = { launcher: '/x/dist/bin.js', args: ['--read-only'], cwd: '/w', env: { A: '1', B: '2' } };
    const key = startKey(base);
    expect(startKey({ ...base, env: { B: '2', A: '1' } })).toBe(key);
    expect(startKey({ ...base, env: { A: '1', B: '3' } })).not.toBe(key);
    expect(startKey({ ...base, env: { A: '1', B: '2', C: '' } })).not.toBe(key);
    expect(startKey({ ...base, args: [] })).not.toBe(key);
    expect(startKey({ ...base, cwd: '/v' })).not.toBe(key);
    expect(startKey({ ...base, launcher: '/y/dist/bin.js' })).not.toBe(key);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
  });

  it('negotiates every version as the SDK does', async () => {
    const versions = legacyVersions();
    for (const requested of [...versions, '2026-07-28', '2099-01-01', '1.0', '']) {
      const real = await sdkInitialize({ protocolVersion: requested, capabilities: {}, clientInfo });
      expect(negotiate(requested, versions), requested).toBe(real.result?.protocolVersion);
    }
  });

  it('answers only initialize params the SDK accepts', async () => {
    const plain = [
      { protocolVersion: '2025-06-18', capabilities: {}, clientInfo },
      {
        protocolVersion: '2025-11-25',
        capabilities: {
          roots: { listChanged: true },
          sampling: { tools: {} },
          elicitation: { form: { applyDefaults: true }, url: {} },
          experimental: { x: { y: 1 } },
          custom: 'anything',
        },
        clientInfo: { ...clientInfo, title: 'C', description: 'd', websiteUrl: 'https://c.example' },
      },
    ];
    for (const params of plain) {
      expect(plainInitializeParams(params)).toBe(true);
      expect((await sdkInitialize(params)).result).toBeDefined();
    }
    const refusedBySdk = [
      { protocolVersion: 1, capabilities: {}, clientInfo },
      { protocolVersion: '2025-06-18', capabilities: { roots: { listChanged: 'yes' } }, clientInfo },
      { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c' } },
      { protocolVersion: '2025-06-18', capabilities: { sampling: { context: 'all' } }, clientInfo },
      { protocolVersion: '2025-06-18', clientInfo },
    ];
    for (const params of refusedBySdk) {
      expect(plainInitializeParams(params), JSON.stringify(params)).toBe(false);
      expect((await sdkInitialize(params)).error, JSON.stringify(params)).toBeDefined();
    }
    // Accepted by the SDK, but not plain: handed to the real server, never answered by the front.
    expect(plainInitializeParams({ ...plain[0], _meta: { progressToken: 1 } })).toBe(false);
    expect(plainInitializeParams({ ...plain[0], capabilities: { tasks: {} } })).toBe(false);
  });

  it('uses an entry only while it is well-formed and every file it depends on is unchanged', () => {
    const dir = mkdtempSync(join(tmpdir(), 'x-front-'));
    const program = join(dir, 'main.js');
    const config = join(dir, 'config.json');
    writeFileSync(program, 'program');
    writeFileSync(config, '{}');
    const stats = statSync(program);
    const entry: StartCacheEntry = {
      format: ENTRY_FORMAT,
      key: 'k',
      files: [[program, stats.size, stats.mtimeMs]],
      contents: [
        [config, '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a'],
        [join(dir, 'absent'), null],
      ],
      protocolVersions: ['2025-06-18'],
      initialize: '"capabilities":{}}',
      toolsList: '{"tools":[]}',
    };
    expect(parseEntry(entry, 'k')).toEqual(entry);
    expect(parseEntry(entry, 'other')).toBe('another key');
    expect(parseEntry({ ...entry, format: 0 }, 'k')).toBe('format 0');
    expect(parseEntry({ ...entry, files: [[program, '1', 2]] }, 'k')).toBe('malformed file checks');
    expect(parseEntry({ ...entry, protocolVersions: [] }, 'k')).toBe('malformed protocol versions');
    expect(parseEntry({ ...entry, toolsList: {} }, 'k')).toBe('malformed results');
    expect(changedFile(entry)).toBeUndefined();
    writeFileSync(config, '{ }');
    expect(changedFile(entry)).toBe(config);
    writeFileSync(config, '{}');
    writeFileSync(join(dir, 'absent'), '');
    expect(changedFile(entry)).toBe(join(dir, 'absent'));
    const later = new Date(stats.mtimeMs + 5_000);
    utimesSync(program, later, later);
    expect(changedFile(entry)).toBe(program);
  });
});
