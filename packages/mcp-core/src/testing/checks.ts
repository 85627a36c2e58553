import type { ToolRegistry } from '../registry.js';
import type { ToolProvider } from '../tool.js';
import type { ConnectedClient } from './clients.js';

/** A provider registered and served over a real in-memory MCP connection. */
export interface ServedProvider {
  provider: ToolProvider;
  registry: ToolRegistry;
  connection: ConnectedClient;
  skipFuzz: readonly string[];
}

/** One rule of the conformance kit. `run` returns what is wrong (empty when the rule holds). */
export interface ProviderCheck {
  title: string;
  run(provider: ToolProvider): string[];
}

/** A rule checked on the provider once it is registered and served over MCP. */
export interface ServedCheck {
  title: string;
  /** For the vitest wrapper: long checks (fuzzing) need more than the default time. */
  timeoutMs?: number;
  run(served: ServedProvider): string[] | Promise<string[]>;
}
