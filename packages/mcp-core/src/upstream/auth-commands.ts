import { type ParseArgsConfig, parseArgs } from 'node:util';
import { McpToolError } from '../errors.js';
import type { BinCommand } from '../runner.js';

/** What an auth command gets from the terminal. */
export interface AuthIo {
  /** Messages for the user (stderr: stdout of an MCP bin is never written). */
  write(text: string): void;
  env: Record<string, string | undefined>;
  /** Aborted on Ctrl+C. */
  signal?: AbortSignal;
}

/** One `login`, `logout` or `whoami` of a provider bin (its one-line summary is given to `authCommands`). */
export interface AuthCommand {
  /** The full `<bin> <command> --help` text. */
  help: string;
  /** Options beyond `--help`, as `node:util` `parseArgs` takes them. */
  options?: ParseArgsConfig['options'];
  /** Checks the parsed options; a message makes the command exit 2 with it. */
  check?(values: Record<string, string | boolean | undefined>): string | undefined;
  /** Does the work; resolves with the exit code. */
  run(values: Record<string, string | boolean | undefined>, io: AuthIo): Promise<number>;
}

/** A failure the user can fix; its message is shown as is (exit 1). */
export class AuthCommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthCommandError';
  }
}

/**
 * Runs one auth command the same way in every bin: `--help`, strict options (exit 2 on a bad
 * one), the work itself, and a failure shown as one line on stderr with exit 1.
 */
export async function runAuthCommand(
  bin: string,
  name: string,
  command: AuthCommand,
  args: readonly string[],
  io: AuthIo,
): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: [...args],
      options: { help: { type: 'boolean', short: 'h' }, ...command.options },
      strict: true,
      allowPositionals: false,
    }).values as Record<string, string | boolean | undefined>;
  } catch (error) {
    io.write(`${bin} ${name}: ${(error as Error).message}\nRun ${bin} ${name} --help for usage.\n`);
    return 2;
  }
  if (values.help) {
    io.write(command.help);
    return 0;
  }
  const problem = command.check?.(values);
  if (problem) {
    io.write(`${bin} ${name}: ${problem}\n`);
    return 2;
  }
  try {
    return await command.run(values, io);
  } catch (error) {
    const known =
      error instanceof AuthCommandError ||
      McpToolError.isInstance(error) ||
      ['LoginError', 'ConfigError'].includes((error as Error | undefined)?.name ?? '');
    const message = (error as Error | undefined)?.message ?? String(error);
    io.write(known ? `${bin} ${name}: ${message}\n` : `${bin} ${name} failed: ${message}\n`);
    return 1;
  }
}

/**
 * The bin's `commands` entry for its auth commands. The module holding them is imported only
 * when one runs (an MCP server never loads it), and Ctrl+C aborts the command's signal.
 */
export function authCommands(
  bin: string,
  summaries: Readonly<Record<string, string>>,
  load: () => Promise<Readonly<Record<string, AuthCommand>>>,
): Record<string, BinCommand> {
  const entries = Object.entries(summaries).map(([name, summary]): [string, BinCommand] => [
    name,
    {
      summary,
      run: async (argv) => {
        const command = (await load())[name];
        if (!command) throw new Error(`${bin} has no ${name} command`);
        const controller = new AbortController();
        const onInterrupt = () => controller.abort();
        process.once('SIGINT', onInterrupt);
        try {
          return await runAuthCommand(bin, name, command, argv, {
            write: (text) => process.stderr.write(text),
            env: process.env,
            signal: controller.signal,
          });
        } finally {
          process.removeListener('SIGINT', onInterrupt);
        }
      },
    },
  ]);
  return Object.fromEntries(entries);
}
