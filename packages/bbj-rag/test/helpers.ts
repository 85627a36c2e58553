import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { ToolRegistry } from '@x/mcp-core';
import { type ConnectedClient, connectInMemory } from '@x/mcp-core/testing';
import { type BbjRagSettings, createBbjRagProvider } from '../src/index.js';

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/compilers/${name}`, import.meta.url));

/** Stand-in compilers (executable node scripts), and a path where none exists. */
export const compilers = {
  valid: fixture('bbjcpl-valid.mjs'),
  invalid: fixture('bbjcpl-invalid.mjs'),
  hanging: fixture('bbjcpl-hanging.sh'),
  crashing: fixture('bbjcpl-crashing.mjs'),
  notExecutable: fixture('record.mjs'),
  missing: fixture('bbjcpl-does-not-exist'),
};

/** The built bin. */
export const binPath = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

/** A real MCP client, in memory, talking to a provider built from these settings. */
export function connectProvider(settings: BbjRagSettings): Promise<ConnectedClient> {
  return connectInMemory(new ToolRegistry().use(createBbjRagProvider(settings)));
}

/** A URL where nothing listens: a port that was free a moment ago. */
export async function closedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

export interface CompilerCall {
  args: string[];
  file: string;
  existed: boolean;
  code: string | null;
  pid: number;
  grandchildPid?: number;
}

/** What the stand-in compilers recorded in $BBJCPL_RECORD. */
export function readCalls(recordFile: string): CompilerCall[] {
  let text: string;
  try {
    text = readFileSync(recordFile, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as CompilerCall);
}

/** Whether a process still runs. A zombie (killed, not yet reaped by its new parent) does not. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // The state is the field after the parenthesised command name in /proc/<pid>/stat (Linux).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}
