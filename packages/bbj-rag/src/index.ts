import { McpToolError, type ToolProvider, toolRef } from '@x/mcp-core';
import { BbjRagRuntime } from './runtime.js';
import type { BbjRagSettings } from './settings.js';
import { createBbjKnowledgeStatus } from './tools/bbj-knowledge-status.js';
import { createSearchBbjKnowledge } from './tools/search-bbj-knowledge.js';
import { createValidateBbjSyntax } from './tools/validate-bbj-syntax.js';

import { VERSION } from './version.js';

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
    instructions: `BBj documentation and syntax tools. Search with ${toolRef('search_bbj_knowledge')} before writing BBj code, check code with ${toolRef('validate_bbj_syntax')}, and call ${toolRef('bbj_knowledge_status')} when a search fails or finds nothing.`,
    tools: [
      createSearchBbjKnowledge(runtime),
      createValidateBbjSyntax(runtime),
      createBbjKnowledgeStatus(runtime),
    ],
    // Ready when the service reports itself healthy: a degraded one cannot search.
    checkReadiness: async ({ signal }) => {
      try {
        const { body } = await runtime.client().health({ signal });
        const parts = Object.entries(body.checks).map(([name, state]) => `${name}: ${state}`);
        const ok = body.status === 'healthy';
        return {
          ready: ok,
          checks: [{ name: 'service', ok, detail: `${body.status} (${parts.join(', ')})` }],
        };
      } catch (error) {
        const detail = McpToolError.isInstance(error) ? error.message : 'the health check failed';
        return { ready: false, checks: [{ name: 'service', ok: false, detail }] };
      }
    },
  };
}

export type { BbjRagSettings } from './settings.js';
export {
  DEFAULT_API_URL,
  DEFAULT_COMPILER_PATH,
  DEFAULT_COMPILER_TIMEOUT_SECONDS,
  DEFAULT_TIMEOUT_MS,
} from './settings.js';
export { VERSION } from './version.js';
