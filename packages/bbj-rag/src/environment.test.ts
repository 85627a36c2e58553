import { describeProviderConfig, describeProviderSettings } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { type BbjRagConfig, BbjRagConfigSchema } from './config.js';
import { SETTINGS_TABLE } from './environment.js';
import { type BbjRagSettings, resolveApiSettings, resolveCompilerSettings } from './settings.js';

describeProviderSettings<BbjRagSettings>({
  packageDir: new URL('..', import.meta.url),
  table: SETTINGS_TABLE,
  resolve: (settings) => ({ ...resolveApiSettings(settings), ...resolveCompilerSettings(settings) }),
  reads: [
    {
      settings: {
        env: {
          BBJ_RAG_API_URL: 'http://rag.internal:8080/api/',
          BBJ_RAG_COMPILER_PATH: '/opt/bbj/bin/bbjcpl',
          BBJ_RAG_COMPILER_TIMEOUT: '2.5',
        },
      },
      read: {
        apiUrl: 'http://rag.internal:8080/api',
        compilerPath: '/opt/bbj/bin/bbjcpl',
        compilerTimeoutSeconds: 2.5,
      },
    },
  ],
  refuses: [
    {
      settings: { env: {}, timeoutMs: 0 },
      message: 'timeoutMs must be a whole number of milliseconds from 1 to 120000, got "0".',
    },
  ],
});

describe('the compiler settings', () => {
  it('are the compiler path and time limit only', () => {
    const env = { BBJ_RAG_COMPILER_PATH: '/opt/bbj/bin/bbjcpl', BBJ_RAG_COMPILER_TIMEOUT: '2.5' };
    expect(resolveCompilerSettings({ env })).toEqual({
      compilerPath: '/opt/bbj/bin/bbjcpl',
      compilerTimeoutSeconds: 2.5,
    });
  });
});

describe('timeoutMs', () => {
  it('takes timeoutMs, and the old requestTimeoutMs when it is not given', () => {
    expect(resolveApiSettings({ env: {}, timeoutMs: 500 }).timeoutMs).toBe(500);
    expect(resolveApiSettings({ env: {}, requestTimeoutMs: 700 }).timeoutMs).toBe(700);
  });
});

describeProviderConfig<BbjRagConfig, BbjRagSettings>(BbjRagConfigSchema, {
  table: SETTINGS_TABLE,
  notInFile: ['fetch'],
});
