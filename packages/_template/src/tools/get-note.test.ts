import { errorBody, resultText } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { useNotes } from '../test-helpers.js';

describe('get_note', () => {
  const notes = useNotes();

  it('reads one note', async () => {
    const text = resultText(await notes.call('get_note', { id: 1 }));
    expect(text).toBe('# Release checklist\n\nTag, build, publish, announce.\n\n(#1, 2026-11-20T09:00:00Z)');
    expect(notes.fake.requests[0]).toMatchObject({ method: 'GET', path: '/notes/1' });
  });

  it('answers an unknown ID with NOT_FOUND that names the tool listing the IDs', async () => {
    const body = errorBody(await notes.call('get_note', { id: 999 }));
    expect(body.error_code).toBe('NOT_FOUND');
    expect(body.message).toContain('No note #999');
    expect(body.message).toContain('list_notes');
  });

  it('rejects a bad ID before any request', async () => {
    expect(errorBody(await notes.call('get_note', { id: 'one' })).error_code).toBe('INVALID_INPUT');
    expect(notes.fake.requests).toEqual([]);
  });

  it('reports a lost connection as unavailable, without crashing', async () => {
    notes.fake.fail({ path: '/notes/1', reset: true, times: Number.POSITIVE_INFINITY });
    const body = errorBody(await notes.call('get_note', { id: 1 }));
    expect(body.error_code).toBe('UPSTREAM_UNAVAILABLE');
    expect(body.message).toContain('TEMPLATE_API_URL');
  });
});

describe('get_note without a usable token', () => {
  const refused = useNotes((fake) => ({ apiUrl: fake.url, token: 'wrong', env: {} }));

  it('says which setting to replace when the API refuses the token', async () => {
    const body = errorBody(await refused.call('get_note', { id: 1 }));
    expect(body.error_code).toBe('TOKEN_EXPIRED');
    expect(body.message).toContain('TEMPLATE_TOKEN');
    expect(JSON.stringify(body)).not.toContain('wrong');
  });
});

describe('get_note with no token at all', () => {
  const unset = useNotes((fake) => ({ apiUrl: fake.url, env: {} }));

  it('is not enabled, names the variable and sends nothing', async () => {
    const body = errorBody(await unset.call('get_note', { id: 1 }));
    expect(body.error_code).toBe('TOOL_NOT_ENABLED');
    expect(body.message).toContain('TEMPLATE_TOKEN');
    expect(unset.fake.requests).toEqual([]);
  });
});
