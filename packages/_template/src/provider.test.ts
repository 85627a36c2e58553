import { readFileSync } from 'node:fs';
import { connectInMemory, describeToolProvider, errorBody } from '@x/mcp-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTemplateProvider, VERSION } from './index.js';
import { createSandbox, type FakeNotes, startFakeNotes } from './testing/index.js';

let fake: FakeNotes;
beforeAll(async () => {
  fake = await startFakeNotes();
});
afterAll(() => fake.close());

// The core conformance kit: names, descriptions, strict schemas, annotations and the fuzz battery.
describeToolProvider(() => createTemplateProvider({ apiUrl: fake.url, token: fake.token, env: {} }), {
  name: 'template',
});

describe('createTemplateProvider', () => {
  it('has the package version and its three tools', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const provider = createTemplateProvider();
    expect(VERSION).toBe(manifest.version);
    expect(provider.version).toBe(manifest.version);
    expect(provider.tools.map((tool) => tool.name)).toEqual(['list_notes', 'get_note', 'create_note']);
  });

  it('reads no settings while it is built: a bad URL fails the call, naming the setting', async () => {
    const connection = await connectInMemory(
      createTemplateProvider({ apiUrl: 'not a url', token: 't', env: {} }),
    );
    try {
      const body = errorBody(await connection.client.callTool({ name: 'list_notes', arguments: {} }));
      expect(body.error_code).toBe('TOOL_NOT_ENABLED');
      expect(body.message).toContain('apiUrl');
    } finally {
      await connection.close();
    }
  });
});

describe('createSandbox', () => {
  it('serves the tools on a fresh fake, signed in', async () => {
    const sandbox = await createSandbox();
    try {
      expect(sandbox.description).toContain('fake Notes API');
      expect(sandbox.provider.id).toBe('template');
    } finally {
      await sandbox.close?.();
    }
  });
});
