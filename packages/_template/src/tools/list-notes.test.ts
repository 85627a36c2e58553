import { errorBody, resultText } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { useNotes } from '../test-helpers.js';

describe('list_notes', () => {
  const notes = useNotes();

  it('lists the notes newest first, with their IDs', async () => {
    const text = resultText(await notes.call('list_notes'));
    expect(text.split('\n')).toEqual([
      '#2 Meeting notes (2026-11-21T14:30:00Z)',
      '#1 Release checklist (2026-11-20T09:00:00Z)',
    ]);
    const [request] = notes.fake.requests;
    expect(request).toMatchObject({ method: 'GET', path: '/notes', query: {} });
    expect(request?.headers.authorization).toBe(`Bearer ${notes.fake.token}`);
    expect(request?.headers['user-agent']).toMatch(/^template-mcp\//);
  });

  it('passes the filter on as q, and says when nothing matches', async () => {
    expect(resultText(await notes.call('list_notes', { contains: 'checklist' }))).toBe(
      '#1 Release checklist (2026-11-20T09:00:00Z)',
    );
    expect(notes.fake.requests[0]?.query).toEqual({ q: 'checklist' });
    expect(resultText(await notes.call('list_notes', { contains: 'zebra' }))).toBe(
      'No note contains "zebra".',
    );
  });

  it('retries a read after a 503 and reports an API that stays down as unavailable', async () => {
    notes.fake.fail({ method: 'GET', path: '/notes', status: 503 });
    expect(resultText(await notes.call('list_notes'))).toContain('#2 Meeting notes');
    expect(notes.fake.requests.map((request) => request.status)).toEqual([503, 200]);

    notes.fake.fail({ path: '/notes', status: 503, times: Number.POSITIVE_INFINITY });
    const body = errorBody(await notes.call('list_notes'));
    expect(body.error_code).toBe('UPSTREAM_UNAVAILABLE');
    expect(body.retryable).toBe(true);
  });
});
