import { errorBody, resultData } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { useBasecampSession } from '../../test-session.js';
import { CLIENTS, IDS, LAPTOP, LOCATOR } from '../../testing/index.js';

const session = useBasecampSession('clients');
const call = session.call;
type Item = {
  id: number;
  subject: string;
  content: string;
  approval_status: string | null;
  approver: { name: string } | null;
  from: string | null;
};

describe('clients and email forwards', () => {
  it('lists approvals with their status and approver, and reads a correspondence with its replies', async () => {
    const approvals = resultData<{ items: Item[] }>(
      await call('list_client_items', { project_id: LAPTOP, kind: 'approvals' }),
    );
    expect(approvals.items).toEqual([
      expect.objectContaining({
        subject: 'Approve the packaging',
        approval_status: 'pending',
        approver: expect.objectContaining({ name: 'Steve Marsh' }),
        content: 'Please approve the **final box** design.',
      }),
    ]);
    expect(session.fake.requests.at(-1)?.path).toBe(
      `/${session.fake.accountId}/buckets/${LAPTOP}/client/approvals.json`,
    );
    const replies = resultData<{ items: Item[] }>(
      await call('list_client_replies', { project_id: LAPTOP, recording_id: CLIENTS.correspondence }),
    );
    expect(replies.items.map((reply) => reply.content)).toEqual(['Thanks, noted.']);
    const other = await call('get_client_item', {
      project_id: LOCATOR,
      kind: 'approvals',
      item_id: CLIENTS.approval,
    });
    expect(errorBody(other)).toMatchObject({ error_code: 'NOT_FOUND' });
  });

  it('reads a forwarded email and replies to it in Markdown', async () => {
    const forwards = resultData<{ items: Item[] }>(await call('list_email_forwards', { project_id: LAPTOP }));
    expect(forwards.items[0]).toMatchObject({
      subject: 'Fwd: Quote for hinges',
      from: 'supplier@example.com',
    });
    const reply = resultData<Item>(
      await call('reply_to_forward', { forward_id: CLIENTS.forward, content: 'Ask for **$3.90**' }),
    );
    expect(reply.content).toBe('Ask for **$3.90**');
    const replies = resultData<{ items: Item[] }>(
      await call('list_forward_replies', { forward_id: CLIENTS.forward }),
    );
    expect(replies.items.map((entry) => entry.id)).toContain(reply.id);
    expect(errorBody(await call('list_email_forwards', { project_id: LOCATOR }))).toMatchObject({
      error_code: 'TOOL_NOT_ENABLED',
    });
  });

  it('shows and hides an item from clients', async () => {
    const shown = resultData<{ visible_to_clients: boolean }>(
      await call('set_client_visibility', { recording_id: IDS.document, visible: true }),
    );
    expect(shown.visible_to_clients).toBe(true);
    expect(session.fake.requests.at(-1)?.body).toEqual({ visible_to_clients: true });
    const hidden = resultData<{ visible_to_clients: boolean }>(
      await call('set_client_visibility', { project_id: LAPTOP, recording_id: IDS.document, visible: false }),
    );
    expect(hidden.visible_to_clients).toBe(false);
  });
});
