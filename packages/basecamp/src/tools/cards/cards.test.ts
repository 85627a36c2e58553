import { errorBody, resultData } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { useBasecampSession } from '../../test-session.js';
import { CARDS, LAPTOP, LOCATOR } from '../../testing/index.js';

const session = useBasecampSession('cards');
const call = session.call;
type Card = {
  id: number;
  title: string;
  content: string;
  completed: boolean;
  position: number;
  parent: { id: number; title: string };
  steps: { id: number; title: string; completed: boolean }[];
  assignees: { name: string }[];
  due_on: string | null;
};
type Table = {
  columns: { id: number; title: string; kind: string; cards_count: number; on_hold: boolean }[];
};

describe('card tables', () => {
  it('finds the card table from project_id and shows its columns left to right', async () => {
    const table = resultData<Table>(await call('get_card_table', { project_id: LAPTOP }));
    expect(table.columns.map((column) => [column.title, column.kind])).toEqual([
      ['Triage', 'triage'],
      ['In progress', 'column'],
      ['Review', 'column'],
      ['Done', 'done'],
    ]);
    const cards = resultData<{ items: Card[] }>(await call('list_cards', { column_id: CARDS.inProgress }));
    expect(cards.items[0]).toMatchObject({
      title: 'Pick the hinge supplier',
      content: 'Two quotes so far. **Decide by Friday.**',
      assignees: [{ name: 'Sharon Bradford' }],
      steps: [
        { title: 'Get a third quote', completed: true },
        { title: 'Order samples', completed: false },
      ],
    });
  });

  it('says when a project has no card table', async () => {
    const result = await call('get_card_table', { project_id: LOCATOR });
    expect(errorBody(result)).toMatchObject({ error_code: 'TOOL_NOT_ENABLED' });
    expect(errorBody(result).message).toContain('has no Card Table');
  });

  it('creates a card from Markdown, moves it to Done (completing it) and back', async () => {
    const created = resultData<Card>(
      await call('create_card', {
        project_id: LAPTOP,
        column_id: CARDS.triage,
        title: 'Drop test',
        content: 'From **1 m**',
      }),
    );
    expect(created).toMatchObject({
      title: 'Drop test',
      content: 'From **1 m**',
      parent: { id: CARDS.triage },
    });
    const done = resultData<Card>(await call('move_card', { card_id: created.id, column_id: CARDS.done }));
    expect(done).toMatchObject({ parent: { id: CARDS.done, title: 'Done' }, completed: true, position: 1 });
    const back = resultData<Card>(
      await call('move_card', {
        project_id: LAPTOP,
        card_id: created.id,
        column_id: CARDS.inProgress,
        position: 2,
      }),
    );
    expect(back).toMatchObject({ parent: { id: CARDS.inProgress }, completed: false, position: 2 });
    const column = resultData<{ items: Card[] }>(await call('list_cards', { column_id: CARDS.inProgress }));
    expect(column.items.map((card) => card.title)).toEqual(['Pick the hinge supplier', 'Drop test']);
  });

  it("refuses a move to a column of another table with Basecamp's message", async () => {
    const result = await call('move_card', { card_id: CARDS.specCard, column_id: CARDS.hingeCard });
    expect(errorBody(result)).toMatchObject({ error_code: 'INVALID_INPUT' });
  });

  it('updates a card: assignees replaced, due date cleared; nothing to change is INVALID_INPUT', async () => {
    const updated = resultData<Card>(
      await call('update_card', {
        card_id: CARDS.hingeCard,
        assignee_ids: [1049715938, 1049715944],
        due_on: null,
      }),
    );
    expect(updated.assignees.map((person) => person.name)).toEqual(['Annie Bryan', 'Steve Marsh']);
    expect(updated.due_on).toBeNull();
    expect(session.fake.requests.at(-1)?.body).toEqual({
      due_on: '',
      assignee_ids: [1049715938, 1049715944],
    });
    const nothing = await call('update_card', { card_id: CARDS.hingeCard });
    expect(errorBody(nothing)).toMatchObject({ error_code: 'INVALID_INPUT' });
  });

  it('keeps a card inside the project given', async () => {
    const result = await call('get_card', { project_id: LOCATOR, card_id: CARDS.hingeCard });
    expect(errorBody(result)).toMatchObject({ error_code: 'NOT_FOUND' });
    expect(errorBody(result).message).toContain(`it is in project ${LAPTOP}`);
  });

  it('adds, completes and reorders steps', async () => {
    const step = resultData<{ id: number; title: string }>(
      await call('create_card_step', { card_id: CARDS.specCard, title: 'Weigh it' }),
    );
    await call('create_card_step', { card_id: CARDS.specCard, title: 'Count ports' });
    const completed = resultData<{ completed: boolean }>(
      await call('complete_card_step', { step_id: step.id }),
    );
    expect(completed.completed).toBe(true);
    expect(session.fake.requests.at(-1)?.body).toEqual({ completion: 'on' });
    const card = resultData<Card>(
      await call('move_card_step', { card_id: CARDS.specCard, step_id: step.id, position: 2 }),
    );
    expect(card.steps.map((entry) => entry.title)).toEqual(['Count ports', 'Weigh it']);
    expect(session.fake.requests.find((request) => request.path.endsWith('/positions.json'))?.body).toEqual({
      source_id: step.id,
      position: 1,
    });
  });

  it('adds, renames, reorders columns and puts one on hold', async () => {
    const column = resultData<{ id: number; title: string }>(
      await call('create_card_column', { project_id: LAPTOP, title: 'Blocked' }),
    );
    await call('update_card_column', { column_id: column.id, title: 'Waiting' });
    const table = resultData<Table>(
      await call('move_card_column', { project_id: LAPTOP, column_id: column.id, position: 1 }),
    );
    expect(table.columns.map((entry) => entry.title).slice(0, 2)).toEqual(['Waiting', 'Triage']);
    const held = resultData<{ on_hold: boolean }>(
      await call('set_card_column_on_hold', { column_id: column.id, on_hold: true }),
    );
    expect(held.on_hold).toBe(true);
    const released = resultData<{ on_hold: boolean }>(
      await call('set_card_column_on_hold', { column_id: column.id, on_hold: false }),
    );
    expect(released.on_hold).toBe(false);
    expect(resultData(await call('watch_card_column', { column_id: column.id }))).toEqual({
      column_id: column.id,
      watching: true,
    });
    expect(session.fake.requests.at(-1)).toMatchObject({ method: 'POST', status: 204 });
    await call('watch_card_column', { column_id: column.id, watching: false });
    expect(session.fake.requests.at(-1)).toMatchObject({ method: 'DELETE', status: 204 });
  });
});
