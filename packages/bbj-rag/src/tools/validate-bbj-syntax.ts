import { ConfigError, defineTool, UpstreamError, UpstreamUnavailableError } from '@x/mcp-core';
import { z } from 'zod';
import { runCompiler } from '../client/compiler.js';
import { textWithData } from '../result.js';
import type { BbjRagRuntime } from '../runtime.js';

/** 64 KiB of source: far beyond a snippet an agent proposes, small enough to compile quickly. */
export const MAX_CODE_LENGTH = 65_536;

export const createValidateBbjSyntax = (runtime: BbjRagRuntime) =>
  defineTool({
    name: 'validate_bbj_syntax',
    title: 'Check BBj syntax',
    description:
      'Checks BBj code for syntax errors with the BBj compiler (nothing is written or run). ' +
      'Call it on BBj code before proposing it; on "invalid", fix the lines the output names (as snippet.bbj) and check again. ' +
      'Needs a local BBj installation: TOOL_NOT_ENABLED or a timeout does not mean the code is wrong.',
    inputSchema: z.strictObject({
      code: z.string().min(1).max(MAX_CODE_LENGTH).describe('A snippet or a whole program'),
    }),
    outputSchema: z.object({
      status: z.enum(['valid', 'invalid']),
      valid: z.boolean(),
      compiler_output: z.string().describe('What the compiler reported (empty when valid)'),
      output_truncated: z.boolean(),
      exit_code: z.number().int().nullable(),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    handler: async ({ code }, context) => {
      const settings = runtime.compiler();
      const outcome = await runCompiler(code, settings, context.signal);
      switch (outcome.kind) {
        case 'valid':
          return textWithData('Valid: the BBj compiler accepted the code with no syntax errors.', {
            status: 'valid',
            valid: true,
            compiler_output: '',
            output_truncated: false,
            exit_code: outcome.exitCode,
          });
        case 'invalid': {
          const output = [outcome.stderr, outcome.stdout].filter(Boolean).join('\n');
          return textWithData(
            `Invalid: BBj compilation failed.\n\nCompiler output:\n${output}${outcome.truncated ? '\n[output truncated]' : ''}`,
            {
              status: 'invalid',
              valid: false,
              compiler_output: output,
              output_truncated: outcome.truncated,
              exit_code: outcome.exitCode,
            },
          );
        }
        case 'timed_out':
          throw new UpstreamUnavailableError(
            `Validation timed out: the BBj compiler did not finish within ${outcome.timeoutSeconds} s and was stopped. The code was not checked. If the compiler is just slow to start, raise BBJ_RAG_COMPILER_TIMEOUT (at most 50) and retry.`,
            { details: { timeout_seconds: outcome.timeoutSeconds } },
          );
        case 'not_found':
          throw new ConfigError(
            outcome.reason === 'missing'
              ? `Validation unavailable: the BBj compiler "${outcome.compilerPath}" was not found. Install BBj and put bbjcpl on PATH, or set BBJ_RAG_COMPILER_PATH to its full path. The code was not checked.`
              : `Validation unavailable: the BBj compiler "${outcome.compilerPath}" is not executable. Fix its permissions or set BBJ_RAG_COMPILER_PATH to the right file. The code was not checked.`,
            { details: { reason: outcome.reason } },
          );
        case 'failed':
          throw new UpstreamError(
            `The BBj compiler ended abnormally (${outcome.signal ? `signal ${outcome.signal}` : `exit code ${outcome.exitCode}`}) without reporting on the code${outcome.stdout ? `: ${outcome.stdout.slice(0, 500)}` : ''}. The code was not checked; check the BBj installation.`,
            { details: { exit_code: outcome.exitCode, signal: outcome.signal } },
          );
      }
    },
  });
