import { BbjRagClient } from './client/rag-client.js';
import {
  type BbjRagSettings,
  type CompilerSettings,
  resolveApiSettings,
  resolveCompilerSettings,
} from './settings.js';

/**
 * What the tools share: the REST client and the compiler settings, each resolved from the
 * settings and the environment on first use. A configuration error is thrown to the tool
 * (it becomes `TOOL_NOT_ENABLED`) and resolution is tried again on the next call.
 */
export class BbjRagRuntime {
  #client: BbjRagClient | undefined;
  #compiler: CompilerSettings | undefined;

  constructor(private readonly settings: BbjRagSettings) {}

  client(): BbjRagClient {
    this.#client ??= new BbjRagClient(resolveApiSettings(this.settings));
    return this.#client;
  }

  compiler(): CompilerSettings {
    this.#compiler ??= resolveCompilerSettings(this.settings);
    return this.#compiler;
  }
}
