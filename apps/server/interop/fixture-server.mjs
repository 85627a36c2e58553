#!/usr/bin/env node
// The conformance suite's fixture server, built only from @x/mcp-core's public API (the built
// package, as a provider would use it): the tools, prompts and resources the suite's server
// scenarios call by name, so `pnpm test:interop` can run those scenarios against our core
// rather than against one provider. Test-only; it is never published.
//
//   node apps/server/interop/fixture-server.mjs     (after pnpm build; prints "listening on <url>")
import {
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineTool,
  formQuestion,
  McpRequestError,
  McpToolError,
  rootsQuestion,
  samplingQuestion,
} from '@x/mcp-core';
import { serveHttp } from '@x/mcp-core/node';
import { z } from 'zod';

const NO_ARGS = z.strictObject({});
const LOCAL = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
// A 1×1 transparent PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

const NAME = formQuestion('What is your name?', { name: { type: 'string' } }, ['name']);
const OK = formQuestion('Please confirm', { ok: { type: 'boolean' } }, ['ok']);

/** The name in a form answer ("stranger" when the person declined). */
function nameOf(answer) {
  return answer.action === 'accept' && typeof answer.content?.name === 'string'
    ? answer.content.name
    : 'stranger';
}

const tools = [
  defineTool({
    name: 'test_simple_text',
    description: 'Returns a fixed text (conformance: tools-call-simple-text).',
    inputSchema: NO_ARGS,
    annotations: LOCAL,
    handler: () => 'This is a simple text response for testing.',
  }),
  defineTool({
    name: 'test_error_handling',
    description: 'Always fails with a tool error (conformance: tools-call-error).',
    inputSchema: NO_ARGS,
    annotations: LOCAL,
    handler: () => {
      throw new McpToolError('INTERNAL_ERROR', 'This tool intentionally returns an error for testing');
    },
  }),
  defineTool({
    name: 'test_tool_with_progress',
    description: 'Reports progress three times, then answers (conformance: tools-call-with-progress).',
    inputSchema: NO_ARGS,
    annotations: LOCAL,
    handler: async (_input, context) => {
      for (const step of [0, 50, 100]) await context.reportProgress(step, 100, `step ${step}`);
      return 'Progress complete.';
    },
  }),
  // A handler's own questions (input-required-result-* on 2026-07-28, answered on the retry;
  // tools-call-elicitation and the like on 2025-11-25, where the SDK sends elicitation/create).
  defineTool({
    name: 'test_input_required_result_elicitation',
    description: 'Asks the person for a name, then greets them.',
    inputSchema: NO_ARGS,
    annotations: LOCAL,
    handler: async (_input, context) => {
      const { user_name } = await context.ask({ user_name: NAME });
      return `Hello, ${nameOf(user_name)}!`;
    },
  }),
  defineTool({
    name: 'test_input_required_result_sampling',
    description: "Asks the client's model for the capital of France.",
    inputSchema: NO_ARGS,
    annotations: LOCAL,
    handler: async (_input, context) => {
      const { capital_question } = await context.ask({
        capital_question: samplingQuestion('What is the capital of France?', 100),
      });
      return `The model answered: ${capital_question.content.text ?? ''}`;
    },
  }),
  defineTool({
    name: 'test_input_required_result_list_roots',
    description: "Lists the client's roots.",
    inputSchema: NO_ARGS,
    annotations: LOCAL,
    handler: async (_input, context) => {
      const { client_roots } = await context.ask({ client_roots: rootsQuestion() });
      return `Roots: ${client_roots.roots.map((root) => root.uri).join(', ')}`;
    },
  }),
  defineTool({
    name: 'test_input_required_result_request_state',
    description: 'Asks for a confirmation; the answer comes back with a signed requestState.',
    inputSchema: NO_ARGS,
    annotations: LOCAL,
    handler: async (_input, context) => {
      const { confirm } = await context.ask({ confirm: OK });
      return `state-ok: confirmed ${confirm.content?.ok === true}`;
    },
  }),
  defineTool({
    name: 'test_input_required_result_tampered_state',
    description: 'Asks for a confirmation; a tampered requestState is refused.',
    inputSchema: NO_ARGS,
    annotations: LOCAL,
    handler: async (_input, context) => {
      const { confirm } = await context.ask({ confirm: OK });
      return `confirmed ${confirm.content?.ok === true}`;
    },
  }),
  defineTool({
    name: 'test_input_required_result_multiple_inputs',
    description: 'Asks a name, a greeting from the model and the roots, all at once.',
    inputSchema: NO_ARGS,
    annotations: LOCAL,
    handler: async (_input, context) => {
      const answers = await context.ask({
        user_name: NAME,
        greeting: samplingQuestion('Generate a greeting', 50),
        client_roots: rootsQuestion(),
      });
      return `${answers.greeting.content.text ?? ''} ${nameOf(answers.user_name)} (${answers.client_roots.roots.length} roots)`;
    },
  }),
  defineTool({
    name: 'test_input_required_result_multi_round',
    description: 'Asks a name, then a colour: two rounds.',
    inputSchema: NO_ARGS,
    annotations: LOCAL,
    handler: async (_input, context) => {
      const { step1 } = await context.ask({
        step1: formQuestion('Step 1: What is your name?', { name: { type: 'string' } }, ['name']),
      });
      const { step2 } = await context.ask({
        step2: formQuestion('Step 2: What is your favorite color?', { color: { type: 'string' } }, ['color']),
      });
      return `${nameOf(step1)} likes ${String(step2.content?.color ?? 'nothing')}.`;
    },
  }),
  defineTool({
    name: 'test_input_required_result_capabilities',
    description: 'Asks only what the client declared: a form when it can, else the model.',
    inputSchema: NO_ARGS,
    annotations: LOCAL,
    handler: async (_input, context) => {
      try {
        const { user_name } = await context.ask({ user_name: NAME });
        return `Hello, ${nameOf(user_name)}!`;
      } catch (error) {
        if (!McpToolError.isInstance(error) || error.code !== 'INPUT_UNAVAILABLE') throw error;
      }
      const { guess } = await context.ask({ guess: samplingQuestion('Suggest a name.', 20) });
      return `Hello, ${guess.content.text ?? 'stranger'}!`;
    },
  }),
  // The tasks extension's scenarios (tasks-*).
  defineTool({
    name: 'greet',
    description: 'Greets by name, at once (never a task).',
    inputSchema: z.strictObject({ name: z.string().describe('Who to greet') }),
    annotations: LOCAL,
    handler: ({ name }) => `Hello, ${name}!`,
  }),
  defineTool({
    name: 'slow_compute',
    description: 'Waits `seconds`, then answers with its label; runs as a task when asked.',
    inputSchema: z.strictObject({
      seconds: z.number().min(0).max(600).describe('How long to work'),
      label: z.string().optional().describe('Echoed in the result'),
    }),
    annotations: LOCAL,
    task: 'optional',
    timeoutMs: 700_000,
    handler: async ({ seconds, label }, context) => {
      await sleep(seconds * 1000, context.signal);
      return `Computed ${label ?? 'result'} after ${seconds} s.`;
    },
  }),
  defineTool({
    name: 'failing_job',
    description: 'Fails with a tool error after about a second; only as a task.',
    inputSchema: NO_ARGS,
    annotations: LOCAL,
    task: 'required',
    handler: async (_input, context) => {
      await sleep(1000, context.signal);
      throw new McpToolError('UPSTREAM_ERROR', 'The job failed, as it always does.');
    },
  }),
  defineTool({
    name: 'protocol_error_job',
    description: 'Ends in a protocol error; runs as a task when asked.',
    inputSchema: NO_ARGS,
    annotations: LOCAL,
    task: 'optional',
    handler: () => {
      throw new McpRequestError(-32603, 'The job broke down.', { reason: 'fixture' });
    },
  }),
  // Tasks that wait for input (tasks-mrtr-input, tasks-mrtr-composition).
  defineTool({
    name: 'confirm_delete',
    description: 'Asks the person to confirm deleting `filename`; as a task, the task waits for the answer.',
    inputSchema: z.strictObject({ filename: z.string().describe('The file') }),
    annotations: LOCAL,
    task: 'optional',
    handler: async ({ filename }, context) => {
      const { confirm } = await context.ask({
        confirm: formQuestion(`Delete ${filename}?`, { confirm: { type: 'boolean' } }, ['confirm']),
      });
      return confirm.action === 'accept' && confirm.content?.confirm === true
        ? `Deleted ${filename}.`
        : `Kept ${filename}.`;
    },
  }),
  defineTool({
    name: 'multi_input',
    description: 'Asks two questions at once; as a task, waits until both are answered.',
    inputSchema: NO_ARGS,
    annotations: LOCAL,
    task: 'optional',
    handler: async (_input, context) => {
      const { first, second } = await context.ask({
        first: formQuestion('First name?', { name: { type: 'string' } }),
        second: formQuestion('Second name?', { name: { type: 'string' } }),
      });
      return `${nameOf(first)} and ${nameOf(second)}`;
    },
  }),
  defineTool({
    name: 'test_tool_with_task',
    description: 'Asks a name before it runs (in rounds), then runs as a task that greets them.',
    inputSchema: NO_ARGS,
    annotations: LOCAL,
    task: 'required',
    questions: () => ({ user_name: NAME }),
    handler: async (_input, context) => {
      const { user_name } = await context.ask({ user_name: NAME });
      return `Hello, ${nameOf(user_name)}!`;
    },
  }),
];

/** Resolves after `ms`, or rejects when `signal` aborts first. */
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

const prompts = [
  definePrompt({
    name: 'test_simple_prompt',
    description: 'A prompt without arguments (conformance: prompts-get-simple).',
    argsSchema: z.strictObject({}),
    handler: () => 'This is a simple prompt for testing.',
  }),
  definePrompt({
    name: 'test_prompt_with_arguments',
    description: 'A prompt with two arguments (conformance: prompts-get-with-args, completion-complete).',
    argsSchema: z.strictObject({
      arg1: z.string().describe('First test argument'),
      arg2: z.string().describe('Second test argument'),
    }),
    complete: { arg1: () => ['testValue1', 'testValue2'] },
    handler: ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
  }),
  definePrompt({
    name: 'test_prompt_with_embedded_resource',
    description: 'A prompt that embeds a resource (conformance: prompts-get-embedded-resource).',
    argsSchema: z.strictObject({ resourceUri: z.string().describe('URI of the resource to embed') }),
    handler: ({ resourceUri }) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: {
              uri: resourceUri,
              mimeType: 'text/plain',
              text: 'Embedded resource content for testing.',
            },
          },
        },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    }),
  }),
];

const resources = [
  defineResource({
    name: 'static_text',
    uri: 'test://static-text',
    description: 'A fixed text (conformance: resources-read-text).',
    mimeType: 'text/plain',
    read: () => 'This is the content of the static text resource.',
  }),
  defineResource({
    name: 'static_binary',
    uri: 'test://static-binary',
    description: 'A fixed PNG (conformance: resources-read-binary).',
    mimeType: 'image/png',
    read: (uri) => [{ uri: uri.href, mimeType: 'image/png', blob: PNG }],
  }),
  defineResourceTemplate({
    name: 'template',
    uriTemplate: 'test://template/{id}/data',
    description: 'Data per id (conformance: resources-templates-read).',
    mimeType: 'application/json',
    variables: z.strictObject({ id: z.string().describe('Any id') }),
    read: (_uri, { id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
  }),
];

const handle = await serveHttp({
  name: 'x-conformance-fixture',
  version: '0.0.0',
  registry: { id: 'fixture', version: '0.0.0', tools, prompts, resources },
  port: Number(process.env.PORT ?? 0),
});
process.stderr.write(`listening on ${handle.url}\n`);
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => handle.close().then(() => process.exit(0)));
}
