import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorBody, resultText } from '@x/mcp-core/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { compilers, connectProvider, isAlive, readCalls } from '../../test/helpers.js';
import type { BbjRagSettings } from '../settings.js';

let scratch: string;
let snippets: string;
let recordFile: string;
let counter = 0;
const originalTmpdir = process.env.TMPDIR;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'bbj-rag-test-'));
  // The tool puts snippets under os.tmpdir(): a private one shows exactly what it leaves behind.
  snippets = join(scratch, 'tmp');
  mkdirSync(snippets);
  process.env.TMPDIR = snippets;
});
afterAll(() => {
  if (originalTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = originalTmpdir;
  rmSync(scratch, { recursive: true, force: true });
});
afterEach(() => {
  delete process.env.BBJCPL_RECORD;
  expect(readdirSync(snippets)).toEqual([]);
});

/** Calls the tool once through a real client, with a fresh record of what the compiler saw. */
async function validate(code: string, settings: BbjRagSettings) {
  recordFile = join(scratch, `calls-${++counter}.jsonl`);
  process.env.BBJCPL_RECORD = recordFile;
  const connection = await connectProvider(settings);
  try {
    return await connection.client.callTool({ name: 'validate_bbj_syntax', arguments: { code } });
  } finally {
    await connection.close();
  }
}

describe('validate_bbj_syntax', () => {
  it('runs the compiler with -N on a temporary file holding the code, and removes it', async () => {
    const code = 'rem check\nprint "hello"\nend\n';
    const result = await validate(code, { compilerPath: compilers.valid });
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toBe('Valid: the BBj compiler accepted the code with no syntax errors.');
    expect(result.structuredContent).toEqual({
      status: 'valid',
      valid: true,
      compiler_output: '',
      output_truncated: false,
      exit_code: 0,
    });
    const [call] = readCalls(recordFile);
    expect(call?.args[0]).toBe('-N');
    expect(call?.file).toMatch(/snippet\.bbj$/);
    expect(call?.file.startsWith(snippets)).toBe(true);
    expect(call?.existed).toBe(true);
    expect(call?.code).toBe(code);
    expect(existsSync(call?.file ?? '')).toBe(false);
  });

  it('reports invalid code with the compiler output, without the temporary path', async () => {
    const result = await validate('print "a"\nfor i = 1 to', { compilerPath: compilers.invalid });
    expect(result.isError).toBeFalsy();
    const [call] = readCalls(recordFile);
    const output = 'snippet.bbj: error at line 2 (2):     for i = 1 to';
    expect(resultText(result)).toBe(`Invalid: BBj compilation failed.\n\nCompiler output:\n${output}`);
    expect(result.structuredContent).toMatchObject({
      status: 'invalid',
      valid: false,
      compiler_output: output,
    });
    expect(resultText(result)).not.toContain(call?.file ?? '(none)');
    expect(existsSync(call?.file ?? '')).toBe(false);
  });

  it('stops a hanging compiler and everything it started, reports a timeout, and removes the file', async () => {
    const started = Date.now();
    const result = await validate('print "x"', {
      compilerPath: compilers.hanging,
      compilerTimeoutSeconds: 1,
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    const body = errorBody(result);
    expect(body).toMatchObject({ error_code: 'UPSTREAM_UNAVAILABLE', retryable: true, timeout_seconds: 1 });
    expect(body.message).toContain('Validation timed out');
    expect(body.message).toContain('The code was not checked');
    const [call] = readCalls(recordFile);
    expect(call?.existed).toBe(true);
    expect(existsSync(call?.file ?? '')).toBe(false);
    expect(isAlive(call?.pid ?? -1)).toBe(false);
    // The grandchild (the JVM of a real bbjcpl) goes with its group.
    await expect.poll(() => isAlive(call?.grandchildPid ?? -1), { timeout: 2_000 }).toBe(false);
  });

  it('kills the compiler and removes the file when the client cancels the call', async () => {
    recordFile = join(scratch, `calls-${++counter}.jsonl`);
    process.env.BBJCPL_RECORD = recordFile;
    const connection = await connectProvider({ compilerPath: compilers.hanging, compilerTimeoutSeconds: 30 });
    try {
      const controller = new AbortController();
      const call = connection.client.callTool(
        { name: 'validate_bbj_syntax', arguments: { code: 'print "x"' } },
        { signal: controller.signal },
      );
      await expect.poll(() => readCalls(recordFile).length, { timeout: 5_000 }).toBe(1);
      controller.abort();
      await expect(call).rejects.toThrow();
      const [seen] = readCalls(recordFile);
      await expect.poll(() => isAlive(seen?.pid ?? -1), { timeout: 2_000 }).toBe(false);
      await expect.poll(() => isAlive(seen?.grandchildPid ?? -1), { timeout: 2_000 }).toBe(false);
      await expect.poll(() => readdirSync(snippets), { timeout: 2_000 }).toEqual([]);
    } finally {
      await connection.close();
    }
  });

  it('says clearly when there is no compiler', async () => {
    const body = errorBody(await validate('print "x"', { compilerPath: compilers.missing }));
    expect(body).toMatchObject({ error_code: 'TOOL_NOT_ENABLED', retryable: false, reason: 'missing' });
    expect(body.message).toContain('Validation unavailable');
    expect(body.message).toContain('BBJ_RAG_COMPILER_PATH');
  });

  it('says clearly when the compiler is not executable', async () => {
    const body = errorBody(await validate('print "x"', { compilerPath: compilers.notExecutable }));
    expect(body).toMatchObject({ error_code: 'TOOL_NOT_ENABLED', reason: 'not_executable' });
    expect(body.message).toContain('not executable');
  });

  it('does not call a broken compiler run a success', async () => {
    const body = errorBody(await validate('print "x"', { compilerPath: compilers.crashing }));
    expect(body).toMatchObject({ error_code: 'UPSTREAM_ERROR', exit_code: 1 });
    expect(body.message).toContain('Java runtime not found');
    expect(body.message).toContain('The code was not checked');
    const [call] = readCalls(recordFile);
    expect(existsSync(call?.file ?? '')).toBe(false);
  });

  it('never runs the code through a shell', async () => {
    const code = 'print "x"\n';
    // With a shell, the semicolon would run a second command; without one it is part of the path.
    const body = errorBody(
      await validate(code, { compilerPath: `${compilers.valid}; touch ${scratch}/pwned` }),
    );
    expect(body.error_code).toBe('TOOL_NOT_ENABLED');
    expect(existsSync(join(scratch, 'pwned'))).toBe(false);
  });

  it('bounds the input size', async () => {
    const body = errorBody(await validate('x'.repeat(65_537), { compilerPath: compilers.valid }));
    expect(body.error_code).toBe('INVALID_INPUT');
    expect(readCalls(recordFile)).toEqual([]);
  });

  it('reads BBJ_RAG_COMPILER_PATH and BBJ_RAG_COMPILER_TIMEOUT when no setting is given', async () => {
    process.env.BBJ_RAG_COMPILER_PATH = compilers.hanging;
    process.env.BBJ_RAG_COMPILER_TIMEOUT = '0.3';
    try {
      const body = errorBody(await validate('print "x"', {}));
      expect(body).toMatchObject({ error_code: 'UPSTREAM_UNAVAILABLE', timeout_seconds: 0.3 });
      process.env.BBJ_RAG_COMPILER_TIMEOUT = 'soon';
      const bad = errorBody(await validate('print "x"', {}));
      expect(bad.error_code).toBe('TOOL_NOT_ENABLED');
      expect(bad.message).toContain('BBJ_RAG_COMPILER_TIMEOUT must be a number of seconds');
    } finally {
      delete process.env.BBJ_RAG_COMPILER_PATH;
      delete process.env.BBJ_RAG_COMPILER_TIMEOUT;
    }
  });
});
