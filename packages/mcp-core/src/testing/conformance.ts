import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../registry.js';
import type { ToolProvider } from '../tool.js';
import type { ServedProvider } from './checks.js';
import { connectInMemory } from './clients.js';
import { PROVIDER_CHECKS, SERVED_CHECKS } from './conformance-checks.js';

export interface DescribeToolProviderOptions {
  /** Suite title; defaults to the provider id. */
  name?: string;
  /** Skip the fuzz battery for these tools, prompts or resources (say why in the calling test). */
  skipFuzz?: readonly string[];
}

type ProviderSource = ToolProvider | (() => ToolProvider | Promise<ToolProvider>);

/**
 * The conformance suite every provider runs, as vitest tests: one test per rule of
 * `conformanceProblems` (valid unique names, useful descriptions, strict described schemas,
 * explicit annotations, a fuzz battery per tool through a real MCP client, and the checks of
 * its prompts and resources). Pass a function to build the provider after your own
 * `beforeAll` (e.g. once a fake upstream is listening).
 */
export function describeToolProvider(
  source: ProviderSource,
  options: DescribeToolProviderOptions = {},
): void {
  const title = options.name ?? (typeof source === 'function' ? 'tool provider' : source.id);
  describe(`${title} conformance`, () => {
    let provider: ToolProvider;
    let served: ServedProvider | undefined;
    let registerFailure: unknown;

    beforeAll(async () => {
      provider = typeof source === 'function' ? await source() : source;
      let registry: ToolRegistry;
      try {
        registry = new ToolRegistry().use(provider);
      } catch (error) {
        registerFailure = error;
        return;
      }
      const connection = await connectInMemory(registry);
      served = { provider, registry, connection, skipFuzz: options.skipFuzz ?? [] };
    });
    afterAll(async () => {
      await served?.connection.close();
    });

    for (const check of PROVIDER_CHECKS) {
      it(check.title, () => {
        expect(check.run(provider)).toEqual([]);
      });
    }
    for (const check of SERVED_CHECKS) {
      it(
        check.title,
        async () => {
          if (!served) throw registerFailure;
          expect(await check.run(served)).toEqual([]);
        },
        check.timeoutMs,
      );
    }
  });
}
