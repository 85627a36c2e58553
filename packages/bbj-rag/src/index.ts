import type { ToolProvider } from '@x/mcp-core';
import { BbjRagRuntime } from './runtime.js';
import type { BbjRagSettings } from './settings.js';
import { createBbjKnowledgeStatus } from './tools/bbj-knowledge-status.js';
import { createSearchBbjKnowledge } from './tools/search-bbj-knowledge.js';
import { createValidateBbjSyntax } from './tools/validate-bbj-syntax.js';

export const VERSION = '0.0.0';

/**
 * BBj documentation search over the BBj RAG REST service, and BBj syntax checks with the
 * local compiler. Constructing it does no I/O; settings and the environment are read when a
 * tool first runs.
 */
export function createBbjRagProvider(settings: BbjRagSettings = {}): ToolProvider {
  const runtime = new BbjRagRuntime(settings);
  return {
    id: 'bbj-rag',
    version: VERSION,
    instructions:
      'BBj documentation and syntax tools. Search with search_bbj_knowledge before writing BBj code, check code with validate_bbj_syntax, and call bbj_knowledge_status when a search fails or finds nothing.',
    tools: [
      createSearchBbjKnowledge(runtime),
      createValidateBbjSyntax(runtime),
      createBbjKnowledgeStatus(runtime),
    ],
  };
}

export type { BbjRagSettings } from './settings.js';
export {
  DEFAULT_API_URL,
  DEFAULT_COMPILER_PATH,
  DEFAULT_COMPILER_TIMEOUT_SECONDS,
  DEFAULT_REQUEST_TIMEOUT_MS,
} from './settings.js';
