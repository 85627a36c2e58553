import {
  type FakeReply,
  type FakeRequest,
  type FakeServer,
  startFakeServer,
} from '@x/mcp-core/testing/fake-server';
import type { Note } from '../runtime.js';

export interface FakeNotesOptions {
  /** The token the fake accepts. Default `fake-notes-token`. */
  token?: string;
  /** The notes it starts with. Default: two sample notes. */
  notes?: readonly Note[];
}

export interface FakeNotes {
  /** The API base (what `TEMPLATE_API_URL` takes). */
  url: string;
  token: string;
  /** The notes, as stored (writes add to it). */
  notes: Note[];
  /** Every request received, oldest first. */
  requests: FakeRequest[];
  /** Answers the next matching request(s) with a failure (status, headers, body, delay, reset). */
  fail: FakeServer['fail'];
  /** Drops the failures that have not fired yet. */
  clearFaults(): void;
  close(): Promise<void>;
}

export const SAMPLE_NOTES: readonly Note[] = [
  {
    id: 1,
    title: 'Release checklist',
    body: 'Tag, build, publish, announce.',
    created_at: '2026-11-20T09:00:00Z',
  },
  {
    id: 2,
    title: 'Meeting notes',
    body: 'Ship the release notes before Friday.',
    created_at: '2026-11-21T14:30:00Z',
  },
];

/**
 * A faithful local fake of the Notes API on 127.0.0.1: bearer tokens (401), the list with its
 * `q` filter, one note (404 with the API's error body), and creating a note with the API's 422
 * validation body. Only the routes and the state live here; the shared harness records requests
 * and injects failures.
 */
export async function startFakeNotes(options: FakeNotesOptions = {}): Promise<FakeNotes> {
  const token = options.token ?? 'fake-notes-token';
  const notes = structuredClone([...(options.notes ?? SAMPLE_NOTES)]);
  const error = (status: number, message: string): FakeReply => ({ status, body: { error: message } });
  // Every route wants the bearer token, as the API does.
  const signedIn =
    (handle: (request: FakeRequest, params: string[]) => FakeReply) =>
    (request: FakeRequest, params: string[]): FakeReply =>
      request.headers.authorization === `Bearer ${token}`
        ? handle(request, params)
        : error(401, 'invalid token');

  const server = await startFakeServer({
    basePath: '/api',
    routes: [
      { method: 'GET', path: '/notes', handle: signedIn(list) },
      { method: 'POST', path: '/notes', handle: signedIn(create) },
      { method: 'GET', path: /^\/notes\/(\d+)$/, handle: signedIn((_request, [id]) => get(Number(id))) },
    ],
    fallback: () => error(404, 'no such route'),
  });

  function list(request: FakeRequest): FakeReply {
    const q = request.query.q?.toLowerCase();
    const found = notes.filter((note) => !q || `${note.title} ${note.body}`.toLowerCase().includes(q));
    return { status: 200, body: [...found].sort((a, b) => b.created_at.localeCompare(a.created_at)) };
  }

  function get(id: number): FakeReply {
    const note = notes.find((entry) => entry.id === id);
    return note ? { status: 200, body: note } : error(404, 'note not found');
  }

  function create(request: FakeRequest): FakeReply {
    const body = (request.json ? request.body : undefined) as Partial<Note> | undefined;
    if (typeof body?.title !== 'string' || body.title.trim() === '') return error(422, 'title is required');
    if (typeof body.body !== 'string') return error(422, 'body must be a string');
    const note: Note = {
      id: Math.max(0, ...notes.map((entry) => entry.id)) + 1,
      title: body.title,
      body: body.body,
      created_at: new Date().toISOString(),
    };
    notes.push(note);
    return { status: 201, body: note };
  }

  return {
    url: `${server.url}/api`,
    token,
    notes,
    requests: server.requests,
    fail: (fault) => server.fail(fault),
    clearFaults: () => server.clearFaults(),
    close: () => server.close(),
  };
}
