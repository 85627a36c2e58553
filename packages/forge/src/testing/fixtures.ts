/**
 * Tickets as Forge sends them. Two come in the backend's real `GET /tickets/:id` shape
 * (`mapToResponse` in its tickets controller: spec inside `techSpec`, objects not strings), one
 * in the CLI's documented `TicketDetail` shape, and one with a status from an older release.
 */

export const FAKE_TEAM_ID = 'team_7c1e2f9a4b3d';
export const FAKE_USER_ID = 'uid_fake_developer';
export const FAKE_USER = { email: 'dev@example.com', displayName: 'Dana Developer' };

/** The team's members as `GET /teams/:teamId/members` lists them (the fake user first). */
export function defaultMembers(): Record<string, unknown>[] {
  return [
    {
      userId: FAKE_USER_ID,
      email: FAKE_USER.email,
      displayName: FAKE_USER.displayName,
      role: 'developer',
      status: 'active',
      joinedAt: '2026-09-01T08:00:00.000Z',
    },
    {
      userId: 'uid_someone_else',
      email: 'sam@example.com',
      displayName: 'Sam Reviewer',
      role: 'admin',
      status: 'active',
      joinedAt: '2026-08-15T08:00:00.000Z',
    },
  ];
}

const createdAt = '2026-10-01T09:00:00.000Z';
const updatedAt = '2026-11-18T16:30:00.000Z';

/** Fields every backend ticket response carries; most are empty for a typical ticket. */
function backendTicket(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    slug: null,
    teamId: FAKE_TEAM_ID,
    description: '',
    type: 'feature',
    priority: 'medium',
    readinessScore: 0,
    generationState: null,
    acceptanceCriteria: [],
    assumptions: [],
    repoPaths: [],
    codeSnapshot: null,
    apiSnapshot: null,
    questions: [],
    estimate: null,
    validationResults: [],
    externalIssue: null,
    driftDetectedAt: null,
    repositoryContext: null,
    repositories: [],
    questionRounds: [],
    currentRound: 0,
    techSpec: null,
    maxRounds: 3,
    attachments: [],
    designReferences: [],
    assignedTo: null,
    implementationBranch: null,
    reviewSession: null,
    folderId: null,
    tagIds: [],
    includeWireframes: true,
    includeHtmlWireframes: false,
    includeApiSpec: true,
    apiSpecDeferred: false,
    wireframeContext: null,
    wireframeImageAttachmentIds: [],
    apiContext: null,
    approvedAt: null,
    createdBy: FAKE_USER_ID,
    createdAt,
    updatedAt,
    executionEvents: [],
    changeRecord: null,
    ...fields,
  };
}

export function defaultTickets(): Record<string, unknown>[] {
  return [
    backendTicket({
      id: 'aec_5f0c2a8e-1b7d-4e55-9a31-0c9e7f1d2b44',
      slug: 'FOR-1',
      status: 'approved',
      title: 'Add password reset by email',
      description: 'Users who forget their password cannot get back into their account.',
      priority: 'high',
      readinessScore: 86,
      acceptanceCriteria: ['A reset link is sent within a minute'],
      assumptions: ['Email delivery already works for sign-up'],
      assignedTo: FAKE_USER_ID,
      approvedAt: '2026-11-17T10:00:00.000Z',
      designReferences: [{ id: 'dr_1', url: 'https://www.figma.com/file/abc/reset', title: 'Reset flow' }],
      reviewSession: {
        qaItems: [
          {
            question: 'Should old reset links stop working after a new one is sent?',
            answer: 'Yes, only the newest link works.',
          },
        ],
        submittedAt: '2026-11-16T12:00:00.000Z',
      },
      techSpec: {
        id: 'spec_1',
        title: 'Password reset',
        createdAt: '2026-11-15T08:00:00.000Z',
        problemStatement: {
          narrative: 'There is no way to reset a forgotten password.',
          whyItMatters: 'Locked-out users open support tickets and churn.',
          context: 'Auth lives in src/auth; mail goes through src/mail/mailer.ts.',
          assumptions: ['Tokens can be stored in the users table'],
          constraints: ['Reset links expire after 30 minutes', 'No new third-party services'],
        },
        solution: {
          overview: 'Issue a signed single-use token and email a link to a reset page.',
          steps: [
            {
              order: 1,
              description: 'Add a reset token column and migration',
              file: 'migrations/0042_reset_token.sql',
            },
            {
              order: 2,
              description: 'Add POST /auth/password-reset to issue the token',
              file: 'src/auth/reset.controller.ts',
            },
            { order: 3, description: 'Send the email with the link' },
          ],
          fileChanges: { create: ['src/auth/reset.controller.ts'], modify: ['src/mail/mailer.ts'] },
        },
        inScope: ['Request a reset link', 'Set a new password from the link'],
        outOfScope: ['SMS reset', 'Admin-initiated resets'],
        acceptanceCriteria: [
          {
            given: 'a registered email',
            when: 'the user requests a reset',
            // biome-ignore lint/suspicious/noThenProperty: Forge's BDD acceptance criteria have a field named then
            then: 'an email with a link is sent',
          },
          {
            given: 'a used or expired link',
            when: 'it is opened',
            // biome-ignore lint/suspicious/noThenProperty: Forge's BDD acceptance criteria have a field named then
            then: 'the page says it is no longer valid',
          },
        ],
        clarificationQuestions: [],
        fileChanges: [
          {
            path: 'src/auth/reset.controller.ts',
            action: 'create',
            suggestedChanges: 'New controller with two routes',
          },
          {
            path: 'src/mail/mailer.ts',
            action: 'modify',
            lineNumbers: [40, 58],
            pattern: 'sendWelcomeEmail',
          },
          { path: 'src/auth/legacy-reset.ts', action: 'delete' },
        ],
        qualityScore: 88,
        ambiguityFlags: [],
        apiChanges: {
          endpoints: [
            {
              method: 'POST',
              route: '/api/auth/password-reset',
              description: 'Request a reset link',
              status: 'new',
            },
            {
              method: 'POST',
              route: '/api/auth/password-reset/confirm',
              description: 'Set the new password',
              status: 'new',
            },
          ],
        },
        testPlan: {
          summary: 'Unit tests for token handling, one integration test for the whole flow.',
          unitTests: [
            {
              type: 'unit',
              description: 'Token expires after 30 minutes',
              testFile: 'src/auth/reset.test.ts',
              testName: 'expires',
              action: 'advance clock',
              assertion: 'rejected',
            },
          ],
          integrationTests: [
            {
              type: 'integration',
              description: 'Request, receive and use a link',
              testFile: 'test/reset.e2e.ts',
              testName: 'flow',
              action: 'full flow',
              assertion: 'password changed',
            },
          ],
          edgeCases: [
            {
              type: 'edge-case',
              description: 'Unknown email gets the same answer',
              testFile: 'src/auth/reset.test.ts',
              testName: 'no leak',
              action: 'request',
              assertion: 'same response',
            },
          ],
        },
      },
    }),
    backendTicket({
      id: 'aec_9d3b7e21-44c0-4a8f-b5e6-2f1a0c7d8e90',
      slug: 'FOR-2',
      status: 'executing',
      title: 'Rate limit the public search endpoint',
      description: 'Search is being scraped.',
      type: 'task',
      priority: 'urgent',
      assignedTo: 'uid_someone_else',
      implementationBranch: 'forge/FOR-2-rate-limit',
    }),
    {
      id: 'T-001',
      title: 'Fix authentication timeout',
      status: 'ready',
      priority: 'medium',
      assignedTo: FAKE_USER_ID,
      description: 'The auth token expires without a refresh.',
      acceptanceCriteria: ['Auth token refreshes before expiry', 'No logout during an active session'],
      createdAt: '2026-02-20T00:00:00.000Z',
      updatedAt: '2026-02-20T00:00:00.000Z',
      fileChanges: [
        { path: 'src/auth/token.ts', action: 'modify', notes: 'Add refresh logic' },
        { path: 'src/auth/middleware.ts', action: 'create' },
      ],
      problemStatement: 'Sessions end after 15 minutes even while the user is active.',
      solution: 'Refresh the token a minute before it expires.',
      apiChanges: 'None',
      testPlan: 'Unit test the refresh timer.',
      designRefs: [],
      reviewSession: null,
    },
    backendTicket({
      id: 'aec_0b8e6c4d-2f1a-4d3b-8c7e-5a9f1e2d3c4b',
      slug: 'FOR-3',
      status: 'forged',
      title: 'Dark mode for the dashboard',
      type: 'feature',
      priority: 'low',
    }),
  ];
}
