import { errorBody, resultText } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { useNotes } from '../test-helpers.js';

describe('create_note', () => {
  const notes = useNotes();

  it('sends the note as JSON and answers with its new ID', async () => {
    const text = resultText(await notes.call('create_note', { title: '  Groceries ', body: 'Milk' }));
    expect(text).toBe('Wrote note #3 "Groceries".');
    expect(notes.fake.requests[0]).toMatchObject({
      method: 'POST',
      path: '/notes',
      json: true,
      body: { title: 'Groceries', body: 'Milk' },
    });
    expect(notes.fake.notes.at(-1)).toMatchObject({ id: 3, title: 'Groceries', body: 'Milk' });
  });

  it('does not send a write again after a 502, so nothing is written twice', async () => {
    notes.fake.fail({ method: 'POST', path: '/notes', status: 502 });
    const body = errorBody(await notes.call('create_note', { title: 'Once', body: '' }));
    expect(body.error_code).toBe('UPSTREAM_UNAVAILABLE');
    expect(notes.fake.requests).toHaveLength(1);
  });

  it('rejects an empty title before any request', async () => {
    expect(errorBody(await notes.call('create_note', { title: '   ', body: 'x' })).error_code).toBe(
      'INVALID_INPUT',
    );
    expect(notes.fake.requests).toEqual([]);
  });
});
