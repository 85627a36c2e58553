import { describe, expect, it } from 'vitest';
import { createStore } from './create.js';

const configError = (message: string | RegExp) =>
  expect.objectContaining({
    name: 'ConfigError',
    code: 'TOOL_NOT_ENABLED',
    message: expect.stringMatching(message),
  });

describe('createStore', () => {
  it('rejects what is not a store URL with a ConfigError naming the accepted forms', async () => {
    for (const url of ['', '   ', 'postgres://db/x', 'memory', '/var/lib/x', 'http://127.0.0.1:6379']) {
      await expect(createStore(url)).rejects.toEqual(configError(/memory:|MCP_STORE/));
    }
    await expect(createStore(42 as unknown as string)).rejects.toEqual(configError(/empty/));
  });

  it('rejects malformed redis URLs before connecting, never echoing a password', async () => {
    const cases: [string, RegExp][] = [
      ['redis://', /not a valid URL|no host/],
      ['redis://127.0.0.1:99999', /not a valid URL|out of range/],
      ['redis://127.0.0.1:6379/db', /database number/],
      ['redis://127.0.0.1:6379/0?tls=1', /query strings/],
      ['redis://user:hunter2-secret@127.0.0.1:6379/x', /database number/],
    ];
    for (const [url, message] of cases) {
      const error = await createStore(url).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toEqual(configError(message));
      expect((error as Error).message).not.toContain('hunter2');
    }
  });

  it('opens each driver from its URL', async () => {
    const memory = await createStore('memory:');
    expect(memory.driver).toBe('memory');
    await memory.close();
    await expect(createStore('file:///')).rejects.toEqual(configError(/use sqlite:<path>/));
  });
});
