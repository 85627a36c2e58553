import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { SettingRow } from '../upstream/settings-table.js';
import { childEnv, connectHttp, spawnStdioClient } from './clients.js';
import { startHttpBin, startProcess } from './processes.js';
import { errorBody } from './results.js';
import { documentedSettingsProblems } from './settings.js';

/*
 * The test kit of a provider package: the checks every provider's environment, config and bin
 * tests make, stated once. A provider's test calls these with its table, its reader, its config
 * schema or its built bin, and keeps only the cases that are its own.
 */

type Env = Record<string, string | undefined>;

export interface ProviderSettingsCase<Settings> {
  /** The settings handed to the reader (its `env` is the environment read). */
  settings: Settings;
  /** What the reader returns for them (matched like `toMatchObject`). */
  read: Record<string, unknown>;
}

export interface RefusedSettingsCase<Settings> {
  settings: Settings;
  /** The error's message, or a part of it: it names the variable or setting. */
  message: string | RegExp;
}

export interface DescribeProviderSettingsOptions<Settings> {
  /** The package's folder, whose README.md and server.json document the table: `new URL('..', import.meta.url)` from `src/`. */
  packageDir: URL;
  /** The settings table (environment.ts). */
  table: readonly SettingRow[];
  /** The provider's reader: settings (with the environment in `env`) to what its tools use, by setting name. */
  resolve: (settings: Settings) => object;
  /** Settings that read every default (nothing set). Default: `{ env: {} }`. */
  defaults?: Settings;
  /** Settings with variables set, and what the reader makes of them: every variable takes effect. */
  reads?: readonly ProviderSettingsCase<Settings>[];
  /** Bad or missing values the reader refuses with a message naming them. */
  refuses?: readonly RefusedSettingsCase<Settings>[];
}

/**
 * The settings table's checks: the README and server.json document it, the reader uses the
 * defaults it states (each row with a default whose setting the reader returns), and reads
 * every variable given in `reads`; bad values are refused naming the variable.
 */
export function describeProviderSettings<Settings extends { env?: Env }>(
  options: DescribeProviderSettingsOptions<Settings>,
): void {
  const { table, resolve } = options;
  describe('the settings table', () => {
    it('is what the README and server.json document', () => {
      expect(documentedSettingsProblems(options.packageDir, table)).toEqual([]);
    });

    it('states the defaults the reader uses', () => {
      const read = resolve(options.defaults ?? ({ env: {} } as Settings)) as Record<string, unknown>;
      const stated = table.filter((row) => row.setting !== undefined && row.default !== undefined);
      const used = stated.filter((row) => (row.setting as string) in read);
      for (const row of used) {
        const value = read[row.setting as string];
        expect([row.setting, Array.isArray(value) ? value.join(',') : String(value)]).toEqual([
          row.setting,
          row.default,
        ]);
      }
      // A table that states defaults the reader never returns states them for nothing.
      expect(used.length > 0 || stated.length === 0).toBe(true);
    });

    const reads = options.reads ?? [];
    if (reads.length > 0) {
      it('is what the reader reads: every variable given takes effect', () => {
        const variables = new Set(table.flatMap((row) => (row.env === undefined ? [] : [row.env])));
        for (const { settings, read } of reads) {
          const unknown = Object.keys(settings.env ?? {}).filter(
            (name) => !variables.has(name) && name !== 'HOME',
          );
          expect(unknown, 'variables the table does not declare').toEqual([]);
          expect(resolve(settings)).toMatchObject(read);
        }
      });
    }

    const refuses = options.refuses ?? [];
    if (refuses.length > 0) {
      it('names the variable or setting when a value is bad or missing', () => {
        for (const { settings, message } of refuses) expect(() => resolve(settings)).toThrow(message);
      });
    }
  });
}

/** A compile-time check: a config key the settings do not have fails to type-check. */
type OnlySettingsKeys<Config, Settings> = [Exclude<keyof Config, keyof Settings>] extends [never]
  ? unknown
  : { 'config keys that are not settings': Exclude<keyof Config, keyof Settings> };

export interface DescribeProviderConfigOptions {
  /** The settings table the schema comes from (`configSchemaOf(table)`). */
  table: readonly SettingRow[];
  /** Settings fields a config file may not give besides the secrets (e.g. `fetch`). */
  notInFile?: readonly string[];
  /** Config files the schema takes. */
  accepts?: readonly Record<string, unknown>[];
  /** Config files the schema refuses (bad values). */
  refuses?: readonly Record<string, unknown>[];
}

/**
 * The config-file schema's checks (`Config` its output, `Settings` the provider's settings):
 * at compile time, a config holds only settings the provider reads, with their types; at run
 * time, its keys are the table's rows with a config schema, an empty file is valid, and every
 * secret, every `notInFile` field and an unknown key is refused by name.
 */
export function describeProviderConfig<Config extends Settings, Settings>(
  schema: z.ZodObject & z.ZodType<Config>,
  options: DescribeProviderConfigOptions & OnlySettingsKeys<Config, Settings>,
): void {
  describe('the config-file schema', () => {
    it('holds the settings of the table a config file may give', () => {
      const inFile = options.table.flatMap((row) => (row.config && row.setting ? [row.setting] : []));
      expect(Object.keys(schema.shape).sort()).toEqual(inFile.sort());
      expect(schema.safeParse({}).success).toBe(true);
      for (const file of options.accepts ?? [])
        expect([file, schema.safeParse(file).success]).toEqual([file, true]);
      for (const file of options.refuses ?? []) {
        expect([file, schema.safeParse(file).success]).toEqual([file, false]);
      }
    });

    it('refuses secrets and unknown keys, naming them', () => {
      // A secret row with a config schema is a path the registry calls secret (BASECAMP_TOKEN_FILE).
      const secrets = options.table.flatMap((row) =>
        row.secret && row.setting && !row.config ? [row.setting] : [],
      );
      for (const key of [...secrets, ...(options.notInFile ?? []), 'notASetting']) {
        const parsed = schema.safeParse({ [key]: 'not-in-a-shared-file' });
        expect(parsed.success).toBe(false);
        expect(parsed.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: [key] });
      }
    });
  });
}

export interface UnconfiguredCase {
  /** The environment of the bin without the setting (added to the kit's `env`). */
  env: Env;
  /** A tool to call, and its arguments (default none). */
  tool: string;
  arguments?: Record<string, unknown>;
  /** What its error says, e.g. the variable to set. */
  message: string;
}

export interface DescribeProviderBinOptions {
  /** The built bin, e.g. `fileURLToPath(new URL('../dist/bin.js', import.meta.url))`. */
  bin: string;
  /** Its command name, e.g. `forge-mcp`. */
  name: string;
  version: string;
  /** The settings table: `--help` lists each of its variables. */
  table: readonly SettingRow[];
  /** The environment every run gets (e.g. a throwaway HOME); a function is called when a test runs. */
  env?: Env | (() => Env);
  /** Its subcommands, listed by `--help`. */
  commands?: readonly string[];
  /** What `--read-only` serves: the tool names, or how many (default: at least one, each read-only). */
  readOnlyTools?: readonly string[] | number;
  /** A required setting left out: the server still starts, and a tool says what to set, in one line. */
  unconfigured?: UnconfiguredCase;
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'kit', version: '0' } },
};

/**
 * The bin's checks: `--help` (name, version, every variable of the table, the commands),
 * `--version`, an unknown flag (exit 2 with a pointer to the usage), over stdio nothing but
 * JSON-RPC on stdout (logs at debug level go to stderr), `--read-only` serves only read-only
 * tools, `--http --port 0` serves the same tools and stops cleanly, and (`unconfigured`) a
 * missing required setting is a one-line tool error naming it. Runs against `--sandbox`.
 */
export function describeProviderBin(options: DescribeProviderBinOptions): void {
  const { bin, name } = options;
  const env = (): Env => (typeof options.env === 'function' ? options.env() : (options.env ?? {}));
  const run = (args: string[]) =>
    spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: childEnv(env()), input: '' });

  describe(`${name} (built bin)`, () => {
    it('prints its help on stdout: name, version, commands and every variable of the table', () => {
      const help = run(['--help']);
      expect(help.status).toBe(0);
      expect(help.stderr).toBe('');
      expect(help.stdout.startsWith(`${name} ${options.version}\n`)).toBe(true);
      for (const row of options.table) {
        if (row.env !== undefined) expect(help.stdout).toContain(`\n  ${row.env} `);
      }
      for (const command of options.commands ?? [])
        expect(help.stdout).toMatch(new RegExp(`\\n {2}${command} +\\S`));
    });

    it('prints its version', () => {
      const version = run(['--version']);
      expect([version.status, version.stdout]).toEqual([0, `${options.version}\n`]);
    });

    it('refuses an unknown flag with exit code 2 and a pointer to --help', () => {
      const refused = run(['--no-such-flag']);
      expect(refused.status).toBe(2);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toContain(`${name}: `);
      expect(refused.stderr).toContain('--no-such-flag');
      expect(refused.stderr).toContain(`Run ${name} --help for usage.`);
    });

    it('writes nothing but JSON-RPC on stdout over stdio, its logs on stderr', async () => {
      const server = startProcess({
        command: process.execPath,
        args: [bin, '--sandbox'],
        env: { ...env(), MCP_LOG_LEVEL: 'debug' },
      });
      try {
        const send = (message: object) => server.child.stdin.write(`${JSON.stringify(message)}\n`);
        send(INITIALIZE);
        await expect.poll(() => server.stdout(), { timeout: 20_000 }).toContain('"id":1');
        send({ jsonrpc: '2.0', method: 'notifications/initialized' });
        send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
        await expect.poll(() => server.stdout(), { timeout: 20_000 }).toContain('"id":2');
        await server.waitForStderr('sandbox: ');
      } finally {
        server.child.stdin.end();
        await server.stop();
      }
      const lines = server.stdout().split('\n').filter(Boolean);
      expect(lines.length).toBeGreaterThanOrEqual(2);
      for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
      expect(server.stderr()).not.toBe('');
    });

    it('serves only read-only tools with --read-only, and the same tools over --http', async () => {
      const stdio = await spawnStdioClient({
        command: process.execPath,
        args: [bin, '--sandbox', '--read-only'],
        env: env(),
      });
      let names: string[];
      try {
        const { tools } = await stdio.client.listTools();
        expect(tools.length).toBeGreaterThan(0);
        for (const tool of tools)
          expect([tool.name, tool.annotations?.readOnlyHint]).toEqual([tool.name, true]);
        names = tools.map((tool) => tool.name);
        const expected = options.readOnlyTools;
        if (typeof expected === 'number') expect(names).toHaveLength(expected);
        else if (expected) expect([...names].sort()).toEqual([...expected].sort());
      } finally {
        await stdio.close();
      }
      const server = await startHttpBin({
        command: process.execPath,
        args: [bin, '--http', '--port', '0', '--sandbox', '--read-only'],
        env: env(),
      });
      try {
        const http = await connectHttp(server.url);
        try {
          expect((await http.client.listTools()).tools.map((tool) => tool.name)).toEqual(names);
        } finally {
          await http.close();
        }
      } finally {
        expect(await server.stop()).toBe(0);
      }
    });

    const unconfigured = options.unconfigured;
    if (unconfigured) {
      it('starts without a required setting, and a tool says in one line what to set', async () => {
        const { client, close } = await spawnStdioClient({
          command: process.execPath,
          args: [bin],
          env: { ...env(), ...unconfigured.env },
        });
        try {
          const body = errorBody(
            await client.callTool({ name: unconfigured.tool, arguments: unconfigured.arguments ?? {} }),
          );
          expect(body.error_code).toBe('TOOL_NOT_ENABLED');
          expect(body.message).toContain(unconfigured.message);
          expect(body.message).not.toContain('\n');
        } finally {
          await close();
        }
      });
    }
  });
}
