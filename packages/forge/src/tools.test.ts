import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolRegistry } from '@x/mcp-core';
import {
  type ConnectedClient,
  connectInMemory,
  describeToolProvider,
  errorBody,
  resultData,
  resultText,
} from '@x/mcp-core/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createForgeProvider, type ForgeSettings, type TicketContext } from './index.js';
import { type FakeForge, startFakeForge } from './testing/index.js';

const BACKEND_ID = 'aec_5f0c2a8e-1b7d-4e55-9a31-0c9e7f1d2b44';

let fake: FakeForge;
beforeAll(async () => {
  fake = await startFakeForge();
});
afterAll(() => fake.close());

describeToolProvider(() =>
  createForgeProvider({ apiUrl: fake.url, accessToken: fake.accessToken, teamId: fake.teamId }),
);

async function connect(settings: ForgeSettings = {}, forge = fake): Promise<ConnectedClient> {
  const provider = createForgeProvider({
    apiUrl: forge.url,
    accessToken: forge.accessToken,
    teamId: forge.teamId,
    retryDelayMs: 10,
    ...settings,
  });
  return connectInMemory(new ToolRegistry().use(provider));
}

describe('ticket reads against the fake Forge', () => {
  let forge: FakeForge;
  let connection: ConnectedClient;
  beforeEach(async () => {
    forge = await startFakeForge();
    connection = await connect({}, forge);
  });
  afterEach(async () => {
    await connection.close();
    await forge.close();
  });

  it('renders a backend-shaped ticket as Markdown with the spec from techSpec', async () => {
    const result = await connection.client.callTool({
      name: 'get_ticket_context',
      arguments: { ticketId: 'FOR-1' },
    });
    expect(result.isError).toBeFalsy();
    const markdown = resultText(result);
    expect(markdown).toMatch(/^# Add password reset by email\n/);
    expect(markdown).toContain('- **Status:** approved');
    expect(markdown).toContain('- **Priority:** high');
    expect(markdown).toContain('## Problem\n\nThere is no way to reset a forgotten password.');
    expect(markdown).toContain('Why it matters: Locked-out users open support tickets and churn.');
    expect(markdown).toContain('## Solution\n\nIssue a signed single-use token');
    expect(markdown).toContain(
      '2. Add POST /auth/password-reset to issue the token (`src/auth/reset.controller.ts`)',
    );
    expect(markdown).toContain(
      '## Acceptance criteria\n\n1. A reset link is sent within a minute\n2. Given a registered email, when the user requests a reset, then an email with a link is sent\n3. Given a used or expired link',
    );
    expect(markdown).toContain(
      '- **create** `src/auth/reset.controller.ts` — New controller with two routes',
    );
    expect(markdown).toContain(
      '- **modify** `src/mail/mailer.ts` — Follow the pattern: sendWelcomeEmail — Lines 40-58',
    );
    expect(markdown).toContain('- `POST /api/auth/password-reset` (new): Request a reset link');
    expect(markdown).toContain('## Test plan\n\nUnit tests for token handling');
    expect(markdown).toContain(
      '**Q1.** Should old reset links stop working after a new one is sent?\n**A1.** Yes',
    );
    const ticket = result.structuredContent as TicketContext;
    expect(ticket).toMatchObject({
      id: BACKEND_ID,
      slug: 'FOR-1',
      status: 'approved',
      assignedTo: forge.userId,
      assigneeName: 'Dana Developer',
      inScope: ['Request a reset link', 'Set a new password from the link'],
      designRefs: ['https://www.figma.com/file/abc/reset'],
    });
    expect(ticket.fileChanges).toHaveLength(3);
    expect(ticket.acceptanceCriteria).toHaveLength(3);
    expect(markdown).toContain('- **Assignee:** Dana Developer\n');
    const request = forge.requests.find((sent) => sent.path === '/tickets/FOR-1');
    expect(request).toMatchObject({ method: 'GET', path: '/tickets/FOR-1' });
    expect(request?.headers.authorization).toBe(`Bearer ${forge.accessToken}`);
    expect(request?.headers['x-team-id']).toBe(forge.teamId);
  });

  it("reads the CLI's documented ticket shape with top-level strings", async () => {
    const result = await connection.client.callTool({
      name: 'get_ticket_context',
      arguments: { ticketId: 'T-001' },
    });
    const markdown = resultText(result);
    expect(markdown).toContain('- **Status:** ready');
    expect(markdown).toContain('## Problem\n\nSessions end after 15 minutes');
    expect(markdown).toContain('## Solution\n\nRefresh the token a minute before it expires.');
    expect(markdown).toContain(
      '1. Auth token refreshes before expiry\n2. No logout during an active session',
    );
    expect(markdown).toContain('- **modify** `src/auth/token.ts` — Add refresh logic');
    expect(markdown).toContain('## API changes\n\nNone');
    expect(markdown).not.toContain('Review Q&A');
  });

  it('tolerates an unknown status and a ticket without a spec', async () => {
    const result = await connection.client.callTool({
      name: 'get_ticket_context',
      arguments: { ticketId: 'FOR-3' },
    });
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as TicketContext).status).toBe('forged');
    expect(
      resultData(
        await connection.client.callTool({ name: 'get_file_changes', arguments: { ticketId: 'FOR-3' } }),
      ),
    ).toEqual({
      ticketId: 'FOR-3',
      fileChanges: [],
    });
  });

  it('returns file changes from either shape', async () => {
    const backend = resultData<{ fileChanges: unknown[] }>(
      await connection.client.callTool({ name: 'get_file_changes', arguments: { ticketId: BACKEND_ID } }),
    );
    expect(backend.fileChanges).toEqual([
      { path: 'src/auth/reset.controller.ts', action: 'create', notes: 'New controller with two routes' },
      {
        path: 'src/mail/mailer.ts',
        action: 'modify',
        notes: 'Follow the pattern: sendWelcomeEmail — Lines 40-58',
      },
      { path: 'src/auth/legacy-reset.ts', action: 'delete' },
    ]);
    const cli = resultData<{ fileChanges: unknown[] }>(
      await connection.client.callTool({ name: 'get_file_changes', arguments: { ticketId: 'T-001' } }),
    );
    expect(cli.fileChanges).toEqual([
      { path: 'src/auth/token.ts', action: 'modify', notes: 'Add refresh logic' },
      { path: 'src/auth/middleware.ts', action: 'create' },
    ]);
  });

  it('answers an unknown ticket with NOT_FOUND naming list_tickets, decided by the status code', async () => {
    const body = errorBody(
      await connection.client.callTool({ name: 'get_ticket_context', arguments: { ticketId: 'FOR-999' } }),
    );
    expect(body).toMatchObject({
      error_code: 'NOT_FOUND',
      message: 'Ticket not found: FOR-999. Use list_tickets to see ticket IDs.',
      retryable: false,
    });
  });

  it('lists all tickets or only mine, one line each', async () => {
    const all = await connection.client.callTool({ name: 'list_tickets', arguments: {} });
    const lines = resultText(all).split('\n');
    expect(lines[0]).toBe('4 tickets (filter: all):');
    expect(lines).toContain(
      `- ${BACKEND_ID} (FOR-1) · approved [high] · Add password reset by email — assigned to Dana Developer`,
    );
    expect(lines).toContain(
      '- T-001 · ready [medium] · Fix authentication timeout — assigned to Dana Developer',
    );
    expect(all.structuredContent).toMatchObject({
      tickets: expect.arrayContaining([
        expect.objectContaining({ assignedTo: forge.userId, assigneeName: 'Dana Developer' }),
      ]),
    });
    expect(forge.requests.filter((sent) => sent.path === '/tickets').at(-1)).toMatchObject({
      method: 'GET',
      path: '/tickets',
      query: { teamId: forge.teamId, all: 'true' },
    });

    const mine = await connection.client.callTool({
      name: 'list_tickets',
      arguments: { filter: 'mine', limit: 1 },
    });
    expect(mine.structuredContent).toMatchObject({ filter: 'mine', total: 2, truncated: true });
    expect((mine.structuredContent as { tickets: unknown[] }).tickets).toHaveLength(1);
    expect(forge.requests.at(-1)?.query).toEqual({ teamId: forge.teamId, assignedToMe: 'true' });
    // The members are read once per provider, not on every call.
    expect(forge.requests.filter((sent) => sent.path.endsWith('/members'))).toHaveLength(1);
  });

  it('shows user ids when the team members cannot be read, and reads them again next time', async () => {
    forge.failNext({ status: 403, path: `/teams/${forge.teamId}/members` });
    const first = await connection.client.callTool({ name: 'list_tickets', arguments: {} });
    expect(first.isError).toBeFalsy();
    expect(resultText(first)).toContain(`Fix authentication timeout — assigned to ${forge.userId}`);
    const second = await connection.client.callTool({ name: 'list_tickets', arguments: {} });
    expect(resultText(second)).toContain('Fix authentication timeout — assigned to Dana Developer');
    expect(forge.requests.filter((sent) => sent.path.endsWith('/members'))).toHaveLength(2);
  });
});

describe('ticket writes against the fake Forge', () => {
  let forge: FakeForge;
  let connection: ConnectedClient;
  beforeEach(async () => {
    forge = await startFakeForge();
    connection = await connect({}, forge);
  });
  afterEach(async () => {
    await connection.close();
    await forge.close();
  });

  const call = (name: string, args: Record<string, unknown>) =>
    connection.client.callTool({ name, arguments: args });

  it('updates a status and sends exactly { status }', async () => {
    expect(resultData(await call('update_ticket_status', { ticketId: 'FOR-1', status: 'refined' }))).toEqual({
      success: true,
      ticketId: 'FOR-1',
      status: 'refined',
    });
    expect(forge.requests.at(-1)).toMatchObject({
      method: 'PATCH',
      path: '/tickets/FOR-1',
      body: { status: 'refined' },
    });
    expect(forge.tickets.get(BACKEND_ID)?.status).toBe('refined');
  });

  it('refuses an unknown status before calling Forge, listing the allowed values', async () => {
    const before = forge.requests.length;
    const body = errorBody(await call('update_ticket_status', { ticketId: 'FOR-1', status: 'READY' }));
    expect(body.error_code).toBe('INVALID_INPUT');
    expect(body.message).toContain('must be one of: draft, defined, refined, approved, executing, delivered');
    expect(forge.requests.length).toBe(before);
  });

  it("passes Forge's refusal of a transition on as INVALID_INPUT", async () => {
    const body = errorBody(await call('update_ticket_status', { ticketId: 'FOR-3', status: 'executing' }));
    expect(body.error_code).toBe('INVALID_INPUT');
    expect(body.message).toContain('Cannot transition to executing from forged');
  });

  it('runs the implementation flow: start, report, settle', async () => {
    const badBranch = errorBody(
      await call('start_implementation', { ticketId: 'FOR-1', branchName: 'feature/x' }),
    );
    expect(badBranch.error_code).toBe('INVALID_INPUT');
    expect(badBranch.message).toContain('must start with "forge/"');

    expect(
      resultData(
        await call('start_implementation', {
          ticketId: 'FOR-1',
          branchName: 'forge/FOR-1-password-reset',
          qaItems: [{ question: 'Which mailer?', answer: 'The existing one' }],
        }),
      ),
    ).toEqual({
      success: true,
      ticketId: BACKEND_ID,
      branchName: 'forge/FOR-1-password-reset',
      status: 'executing',
    });
    expect(forge.requests.at(-1)?.body).toEqual({
      branchName: 'forge/FOR-1-password-reset',
      qaItems: [{ question: 'Which mailer?', answer: 'The existing one' }],
    });

    const decision = resultData<{ eventId: string }>(
      await call('report_decision', {
        ticketId: 'FOR-1',
        summary: 'Store tokens hashed',
        rationale: 'A leaked table must not allow resets',
      }),
    );
    expect(decision.eventId).toMatch(/^evt_/);
    expect(forge.requests.at(-1)?.body).toEqual({
      type: 'decision',
      title: 'Store tokens hashed',
      description: 'A leaked table must not allow resets',
    });
    await call('report_risk', { ticketId: 'FOR-1', summary: 'Mail provider quota', severity: 'high' });
    expect(forge.requests.at(-1)?.body).toEqual({
      type: 'risk',
      title: 'Mail provider quota',
      description: 'Severity: high\n\nMail provider quota',
    });
    await call('report_scope_change', { ticketId: 'FOR-1', summary: 'Dropped the legacy deletion' });
    expect(forge.requests.at(-1)?.body).toEqual({
      type: 'scope_change',
      title: 'Dropped the legacy deletion',
      description: 'Dropped the legacy deletion',
    });

    expect(
      resultData(
        await call('submit_settlement', {
          ticketId: 'FOR-1',
          summary: 'Password reset implemented',
          filesChanged: [
            'src/auth/reset.controller.ts',
            { path: 'src/mail/mailer.ts', additions: 12, deletions: 3 },
          ],
          prUrl: 'https://github.com/acme/app/pull/7',
        }),
      ),
    ).toEqual({ success: true, ticketId: BACKEND_ID, status: 'delivered' });
    expect(forge.requests.at(-1)).toMatchObject({
      method: 'POST',
      path: '/tickets/FOR-1/settle',
      body: {
        executionSummary: 'Password reset implemented\n\nPull request: https://github.com/acme/app/pull/7',
        filesChanged: [
          { path: 'src/auth/reset.controller.ts', additions: 0, deletions: 0 },
          { path: 'src/mail/mailer.ts', additions: 12, deletions: 3 },
        ],
      },
    });
    const record = forge.tickets.get(BACKEND_ID)?.changeRecord as { decisions: unknown[]; risks: unknown[] };
    expect(record.decisions).toHaveLength(1);
    expect(record.risks).toHaveLength(1);
  });

  it('reports Forge refusing an event outside execution', async () => {
    const body = errorBody(await call('report_risk', { ticketId: 'FOR-3', summary: 'x' }));
    expect(body.error_code).toBe('INVALID_INPUT');
    expect(body.message).toContain('Ticket must be EXECUTING');
  });

  it('submits a review session', async () => {
    expect(
      resultData(
        await call('submit_review_session', {
          ticketId: 'T-001',
          qaItems: [{ question: 'Q?', answer: 'A.' }],
        }),
      ),
    ).toEqual({ success: true, ticketId: 'T-001', status: 'refined' });
    expect(forge.requests.at(-1)).toMatchObject({
      path: '/tickets/T-001/review-session',
      body: { qaItems: [{ question: 'Q?', answer: 'A.' }] },
    });
    expect(
      errorBody(await call('submit_review_session', { ticketId: 'T-001', qaItems: [] })).error_code,
    ).toBe('INVALID_INPUT');
  });

  it('hides every write tool under readOnly', async () => {
    const provider = createForgeProvider({
      apiUrl: forge.url,
      accessToken: forge.accessToken,
      teamId: forge.teamId,
    });
    const registry = new ToolRegistry().use(provider, { readOnly: true });
    expect(
      registry
        .getAll()
        .map((tool) => tool.name)
        .sort(),
    ).toEqual(['get_file_changes', 'get_repository_context', 'get_ticket_context', 'list_tickets']);
  });
});

describe('get_repository_context', () => {
  let workspace: string;
  let connection: ConnectedClient;
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, {
      cwd,
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@example.com',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@example.com',
      },
    });

  beforeAll(async () => {
    workspace = realpathSync(mkdtempSync(join(tmpdir(), 'forge-repo-')));
    const repo = join(workspace, 'repo');
    mkdirSync(join(repo, 'src'), { recursive: true });
    git(workspace, 'init', '-q', '-b', 'forge/FOR-1-reset', 'repo');
    for (let index = 0; index < 5; index++)
      writeFileSync(join(repo, 'src', `file${index}.ts`), `export const n = ${index};\n`);
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'initial');
    git(repo, 'remote', 'add', 'origin', 'https://someone:ghp_secret@github.com/acme/app.git');
    writeFileSync(join(repo, 'src', 'file0.ts'), 'changed\n');
    writeFileSync(join(repo, 'src', 'file1.ts'), 'staged\n');
    git(repo, 'add', 'src/file1.ts');
    writeFileSync(join(repo, 'new.ts'), 'untracked\n');
    mkdirSync(join(workspace, 'plain'));
    const outside = mkdtempSync(join(tmpdir(), 'forge-outside-'));
    symlinkSync(outside, join(workspace, 'escape'));
    connection = await connect({ cwd: workspace });
  });
  afterAll(() => connection.close());

  const call = (args: Record<string, unknown>) =>
    connection.client.callTool({ name: 'get_repository_context', arguments: args });

  it('reads branch, staged, modified and untracked files and a bounded file list with git', async () => {
    const data = resultData<Record<string, unknown>>(await call({ path: 'repo', maxFiles: 2 }));
    expect(data).toMatchObject({
      path: 'repo',
      root: 'repo',
      branch: 'forge/FOR-1-reset',
      head: 'forge/FOR-1-reset',
      staged: ['src/file1.ts'],
      modified: ['src/file0.ts'],
      untracked: ['new.ts'],
      files: ['src/file0.ts', 'src/file1.ts'],
      totalFiles: 5,
      truncated: true,
    });
    expect(data.remote).toBe('https://github.com/acme/app.git');
    expect(JSON.stringify(data)).not.toContain('ghp_secret');
  });

  it('says clearly when the directory is not a repository', async () => {
    const body = errorBody(await call({ path: 'plain' }));
    expect(body.error_code).toBe('NOT_FOUND');
    expect(body.message).toContain('Not a git repository: plain');
  });

  it('refuses paths outside the working directory, also through a symlink', async () => {
    for (const path of ['..', '/etc', 'escape']) {
      const body = errorBody(await call({ path }));
      expect(body.error_code, path).toBe('INVALID_INPUT');
      expect(body.message, path).toContain('outside the working directory');
    }
  });

  it('answers a missing path with NOT_FOUND', async () => {
    expect(errorBody(await call({ path: 'nope' })).error_code).toBe('NOT_FOUND');
  });
});
