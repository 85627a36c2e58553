import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import {
  errorBody,
  resultData,
  runProcess,
  type SpawnedClient,
  spawnStdioClient,
} from '../src/testing/index.js';
import { fixtureBin, runFixtureBin, startFixtureBin } from './fixtures/spawn-bin.js';

const children: ChildProcessWithoutNullStreams[] = [];
let spawned: SpawnedClient | undefined;

afterEach(async () => {
  await spawned?.close();
  spawned = undefined;
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

function startRaw(args: string[] = []) {
  const bin = startFixtureBin(args);
  const { child } = bin;
  children.push(child);
  const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
  const waitFor = async (id: number) => {
    await expect
      .poll(
        () =>
          bin
            .stdout()
            .split('\n')
            .some((line) => line.includes(`"id":${id}`)),
        { timeout: 10_000 },
      )
      .toBe(true);
  };
  const initialize = async () => {
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await waitFor(1);
  };
  return { ...bin, send, waitFor, initialize };
}

describe('a spawned bin over stdio', () => {
  it('keeps stdout pure JSON-RPC when a handler writes to console.log and process.stdout', async () => {
    const raw = startRaw();
    await raw.initialize();
    raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    raw.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'noisy', arguments: {} } });
    await raw.waitFor(2);
    const lines = raw.stdout().split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    await expect.poll(() => raw.stderr()).toContain('console.log from a handler');
    await expect.poll(() => raw.stderr()).toContain('console.info from a handler');
    await expect.poll(() => raw.stderr()).toContain('raw stdout write from a handler');
    const answer = lines.map((line) => JSON.parse(line)).find((message) => message.id === 2);
    expect(answer.result.structuredContent).toEqual({ ok: true });
  });

  it('serves a real SDK client', async () => {
    spawned = await spawnStdioClient(fixtureBin);
    const { tools } = await spawned.client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('echo');
    expect(resultData(await spawned.client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }))).toEqual({
      sum: 3,
    });
    const data = resultData<{ request: unknown }>(
      await spawned.client.callTool({ name: 'whoami', arguments: {} }),
    );
    expect(data.request).toEqual({ transport: 'stdio' });
  });

  it('applies --read-only, --include and --exclude', async () => {
    spawned = await spawnStdioClient({
      ...fixtureBin,
      args: [...fixtureBin.args, '--read-only', '--include', 'echo,add,fail,slow', '--exclude', 'slow'],
    });
    const { tools } = await spawned.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['echo', 'add']);
    const body = errorBody(await spawned.client.callTool({ name: 'echo', arguments: { text: 1 } }));
    expect(body.error_code).toBe('INVALID_INPUT');
  });

  it('runs with --sandbox through the provider hook', async () => {
    spawned = await spawnStdioClient({ ...fixtureBin, args: [...fixtureBin.args, '--sandbox'] });
    expect((await spawned.client.listTools()).tools.length).toBeGreaterThan(0);
    await expect.poll(() => spawned?.stderr()).toContain('sandbox: fixture sandbox');
  });

  it('exits cleanly when stdin closes', async () => {
    const raw = startRaw();
    raw.child.stdin.end();
    const [code] = await once(raw.child, 'exit');
    expect(code).toBe(0);
    expect(raw.stdout()).toBe('');
  });

  it('answers every request written before stdin closed, then exits (printf ... | bin)', async () => {
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'pipe', version: '1' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'slow', arguments: { ms: 200 } } },
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } },
    ];
    const { code, stdout } = await runProcess({
      ...fixtureBin,
      input: lines.map((line) => JSON.stringify(line)).join('\n'),
    });
    expect(code).toBe(0);
    const answers = stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(answers.map((answer) => answer.id).sort()).toEqual([1, 2, 3, 4]);
    const byId = new Map(answers.map((answer) => [answer.id, answer]));
    expect(byId.get(2).result.tools.length).toBeGreaterThan(0);
    expect(byId.get(3).result.structuredContent).toEqual({ waited: 200 });
    expect(byId.get(4).result.structuredContent).toEqual({ sum: 3 });
  });

  it('answers a line over 10 MiB with an error naming its id, and keeps serving', async () => {
    const raw = startRaw();
    await raw.initialize();
    raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const huge = 'x'.repeat(10 * 1024 * 1024 + 10);
    raw.child.stdin.write(
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"${huge}"}}}\n`,
    );
    raw.send({
      jsonrpc: '2.0',
      id: 8,
      method: 'tools/call',
      params: { name: 'add', arguments: { a: 2, b: 2 } },
    });
    await raw.waitFor(8);
    const answers = raw
      .stdout()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    const tooLarge = answers.find((answer) => answer.id === 7);
    expect(tooLarge.error.code).toBe(-32600);
    expect(tooLarge.error.message).toContain('at most 10 MiB');
    expect(answers.find((answer) => answer.id === 8).result.structuredContent).toEqual({ sum: 4 });
    await expect.poll(() => raw.stderr()).toContain('discarded a message larger than 10 MiB');
  });

  it('answers a line that is not JSON with a parse error and keeps serving', async () => {
    const raw = startRaw();
    await raw.initialize();
    raw.child.stdin.write('this is not json\n');
    raw.send({ jsonrpc: '2.0', id: 9, method: 'tools/list' });
    await raw.waitFor(9);
    expect(raw.stdout()).toContain('"code":-32700');
  });

  it('says on stderr that it is waiting for a client', async () => {
    const raw = startRaw();
    await expect.poll(() => raw.stderr(), { timeout: 10_000 }).toContain('waiting for a client on stdin');
    expect(raw.stdout()).toBe('');
  });

  it.each(['SIGINT', 'SIGTERM'] as const)('exits cleanly on %s', async (signal) => {
    const raw = startRaw();
    await raw.initialize();
    raw.child.kill(signal);
    const [code] = await once(raw.child, 'exit');
    expect(code).toBe(0);
  });

  it('prints --help and --version, and rejects an unknown flag with exit code 2', () => {
    const run = (...args: string[]) => runFixtureBin(args);
    const help = run('--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: fixture-mcp [options]');
    expect(help.stdout).toContain('FIXTURE_TOKEN');
    expect(run('--version').stdout).toBe('1.2.3\n');
    const bad = run('--bogus');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("Unknown option '--bogus'");
    expect(bad.stdout).toBe('');
  });

  it('runs a subcommand instead of a server and lists commands and own flags in --help', () => {
    const greeted = runFixtureBin(['greet', 'Ada', 'Lovelace']);
    expect(greeted.status).toBe(3);
    expect(greeted.stdout).toBe('hello Ada Lovelace\n');
    const help = runFixtureBin(['--help']).stdout;
    expect(help).toContain('fixture-mcp <command> [args]');
    expect(help).toMatch(/Commands:\n {2}greet {2}print a greeting and exit with code 3/);
    expect(help).toMatch(/--second-prefix <p> +prefix of the second copy/);
  });

  it('composes several providers: own prefixes and read-only, then the command line across all', async () => {
    spawned = await spawnStdioClient({ ...fixtureBin, args: [...fixtureBin.args, '--compose'] });
    const names = (await spawned.client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('a_remove_item');
    expect(names).toContain('b_echo');
    expect(names).not.toContain('b_remove_item');
    expect(resultData(await spawned.client.callTool({ name: 'b_add', arguments: { a: 2, b: 3 } }))).toEqual({
      sum: 5,
    });
    await spawned.close();

    spawned = await spawnStdioClient({
      ...fixtureBin,
      args: [
        ...fixtureBin.args,
        '--compose',
        '--second-prefix',
        'z_',
        '--include',
        '*_echo,a_add',
        '--read-only',
      ],
    });
    expect((await spawned.client.listTools()).tools.map((tool) => tool.name)).toEqual([
      'a_echo',
      'a_add',
      'z_echo',
    ]);
  });

  it('names tools as served in descriptions, errors thrown from anywhere, hints and success text', async () => {
    spawned = await spawnStdioClient({ ...fixtureBin, args: [...fixtureBin.args, '--compose'] });
    const { tools } = await spawned.client.listTools();
    const find = (name: string) => tools.find((tool) => tool.name === name);
    expect(find('a_find_item')?.description).toBe(
      'Finds an item by id; delete it afterwards with a_remove_item. Names tools with toolRef.',
    );
    expect(JSON.stringify(find('a_find_item')?.inputSchema)).toContain('as a_echo would print it');
    // The read-only copy does not serve remove_item, and says so instead of naming an absent tool.
    expect(find('b_find_item')?.description).toContain('b_remove_item (not enabled on this server)');

    const missing = errorBody(
      await spawned.client.callTool({ name: 'a_find_item', arguments: { id: 'missing' } }),
    );
    expect(missing.message).toBe('Item not found: missing. Use a_echo to check the server.');
    expect(missing.hint).toBe('Call a_add before looking again.');

    const found = await spawned.client.callTool({ name: 'b_find_item', arguments: { id: 'x1' } });
    expect(found.structuredContent).toEqual({
      found: 'x1',
      next_step: 'Delete it with b_remove_item (not enabled on this server).',
    });
    expect(JSON.stringify(found.content)).toContain('Next: b_remove_item (not enabled on this server).');
    expect(JSON.stringify(tools)).not.toMatch(/[\u2060\u2063]/);
  });

  it('refuses a composition whose names collide, or a rule that matches no composed tool (exit code 2)', () => {
    const collision = runFixtureBin(['--compose', '--second-prefix', 'a_']);
    expect(collision.status).toBe(2);
    expect(collision.stderr).toContain('a_echo');
    const unmatched = runFixtureBin(['--compose', '--exclude', 'echo']);
    expect(unmatched.status).toBe(2);
    expect(unmatched.stderr).toContain('filter rule(s) "echo" match no tool');
  });

  it('exits with code 2 and a clear message when a filter matches nothing', () => {
    const result = runFixtureBin(['--include', 'nothing']);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('"nothing" match no tool');
    expect(result.stdout).toBe('');
  });
});
