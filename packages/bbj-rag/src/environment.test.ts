import { documentedSettingsProblems } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT, SETTINGS_TABLE } from './environment.js';
import { resolveApiSettings, resolveCompilerSettings } from './settings.js';

describe('the variable table', () => {
  it('is what the README and server.json document', () => {
    expect(documentedSettingsProblems(new URL('..', import.meta.url), SETTINGS_TABLE)).toEqual([]);
  });

  it('is what the settings read from the env setting, with the defaults it states', () => {
    const env = {
      BBJ_RAG_API_URL: 'http://rag.internal:8080/api/',
      BBJ_RAG_COMPILER_PATH: '/opt/bbj/bin/bbjcpl',
      BBJ_RAG_COMPILER_TIMEOUT: '2.5',
    };
    expect(resolveApiSettings({ env }).apiUrl).toBe('http://rag.internal:8080/api');
    expect(resolveCompilerSettings({ env })).toEqual({
      compilerPath: '/opt/bbj/bin/bbjcpl',
      compilerTimeoutSeconds: 2.5,
    });
    const stated = Object.fromEntries(ENVIRONMENT.map((variable) => [variable.name, variable.default]));
    expect(resolveApiSettings({ env: {} }).apiUrl).toBe(stated.BBJ_RAG_API_URL);
    const defaults = resolveCompilerSettings({ env: {} });
    expect(defaults.compilerPath).toBe(stated.BBJ_RAG_COMPILER_PATH);
    expect(String(defaults.compilerTimeoutSeconds)).toBe(stated.BBJ_RAG_COMPILER_TIMEOUT);
  });

  it('takes timeoutMs, and the old requestTimeoutMs when it is not given', () => {
    expect(resolveApiSettings({ env: {}, timeoutMs: 500 }).timeoutMs).toBe(500);
    expect(resolveApiSettings({ env: {}, requestTimeoutMs: 700 }).timeoutMs).toBe(700);
    expect(() => resolveApiSettings({ env: {}, timeoutMs: 0 })).toThrow(
      'timeoutMs must be a whole number of milliseconds from 1 to 120000, got "0".',
    );
  });
});
