import { McpToolError, ToolRegistry } from '@x/mcp-core';
import { connectInMemory, errorBody, resultData } from '@x/mcp-core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { ProjectAllowlist, parseProjects } from './client/projects.js';
import { BasecampConfigSchema } from './config.js';
import { createBasecampProvider } from './index.js';
import { namedSpecs } from './openapi/reports.js';
import { type Previous, SCENARIO } from './openapi/scenario.js';
import {
  CARDS,
  CHECKINS,
  CLIENTS,
  DOCK,
  type FakeBasecamp,
  IDS,
  LAPTOP,
  LOCATOR,
  OLD_SITE,
  type RecordedRequest,
  startFakeBasecamp,
  TEMPLATE_ID,
} from './testing/index.js';

// A server limited to some projects (`projects`), proved over every tool: the contract scenario
// (one call of each tool, src/openapi/scenario.ts) runs against the fake Basecamp, a real HTTP
// server whose request log is checked, independently of the allowlist's own code, for any request
// about another project.

const fakes: FakeBasecamp[] = [];
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

interface Outcome {
  tool: string;
  /** `ok`, or the error code. */
  code: string;
  text: string;
  structured: unknown;
}

/** How the agent picks project_id for a tool that takes one and whose scenario step leaves it out. */
type Inject = 'none' | 'true-project' | number;

async function runScenario(projects: readonly number[] | undefined, inject: Inject) {
  const fake = await startFakeBasecamp();
  fakes.push(fake);
  const connection = await connectInMemory(
    new ToolRegistry().use(
      createBasecampProvider({
        apiUrl: fake.url,
        accessToken: fake.accessToken,
        accountId: fake.accountId,
        rateLimitRequests: 10_000,
        env: {},
        toolsets: 'all',
        ...(projects ? { projects } : {}),
      }),
    ),
  );
  const { tools } = await connection.client.listTools();
  const takesProject = new Set(
    tools.filter((tool) => 'project_id' in (tool.inputSchema.properties ?? {})).map((tool) => tool.name),
  );
  const requiresProject = new Set(
    tools.filter((tool) => tool.inputSchema.required?.includes('project_id')).map((tool) => tool.name),
  );
  // The project an item really is in: a recording's, or the project whose dock holds the ID.
  const projectOf = (value: unknown): number | undefined => {
    if (typeof value !== 'number') return undefined;
    const recording = fake.recordings.get(value);
    if (recording) return recording.projectId;
    return fake.projects.find((project) => project.dock.some((entry) => entry.id === value))?.id;
  };
  const outcomes: Outcome[] = [];
  const ids = { LAPTOP, LOCATOR, DOCK, IDS, CARDS, CHECKINS, CLIENTS, TEMPLATE_ID };
  let previous: Previous;
  try {
    for (const step of SCENARIO) {
      const args = step.args(ids, previous);
      if (inject !== 'none' && takesProject.has(step.tool) && args.project_id === undefined) {
        const found = Object.values(args)
          .map(projectOf)
          .find((id) => id !== undefined);
        // An item's project; none for a read across projects by person.
        // Webhooks, needles, boosts and time entries are not records of the fake: all are LAPTOP's.
        if (found !== undefined || requiresProject.has(step.tool) || args.person_id === undefined)
          args.project_id = inject === 'true-project' ? (found ?? LAPTOP) : inject;
      }
      const result = await connection.client.callTool({ name: step.tool, arguments: args });
      previous = result.structuredContent as Previous;
      const text = JSON.stringify(result.content);
      const code = result.isError
        ? (/"error_code"\s*:\s*"([A-Z_]+)"/.exec(
            JSON.stringify(result.structuredContent ?? {}) + text.replace(/\\"/g, '"'),
          )?.[1] ?? 'ERROR')
        : 'ok';
      outcomes.push({ tool: step.tool, code, text, structured: result.structuredContent });
    }
  } finally {
    await connection.close();
  }
  return {
    fake,
    outcomes,
    requests: fake.requests.filter((request) => request.path.startsWith(`/${fake.accountId}/`)),
  };
}

/**
 * The requests that reached another project than `allowed`, judged from the fake's own data (not
 * the allowlist's rules): a route or query naming another project; a route without a project that
 * names an item (its own route does not say where it is) or writes anything but a file to attach
 * or the caller's own profile; and a request naming another project's record, dock tool or
 * project that Basecamp answered with success (inside a listed project's route, Basecamp answers
 * 404 for another project's item).
 */
function trespasses(fake: FakeBasecamp, requests: RecordedRequest[], allowed: readonly number[]): string[] {
  const foreign = new Set<number>();
  for (const project of fake.projects) {
    if (allowed.includes(project.id)) continue;
    foreign.add(project.id);
    for (const entry of project.dock) foreign.add(entry.id);
  }
  for (const recording of fake.recordings.values())
    if (!allowed.includes(recording.projectId)) foreign.add(recording.id);
  const problems: string[] = [];
  for (const request of requests) {
    const path = request.path.slice(fake.accountId.length + 1);
    const query = Object.values(request.query).join(',');
    const where = `${request.method} ${path}${query ? `?${query}` : ''} (${request.status})`;
    // Event IDs (`/events/{id}`) are numbered apart from records; the fake's may equal a dock tool's.
    const numbers: string[] = `${path.replace(/\/events\/\d+/, '')} ${query}`.match(/\d+/g) ?? [];
    const bucket = /^\/(?:buckets|projects)\/(\d+)(?:\/|\.json)/.exec(path);
    const ok = (request.status ?? 0) < 400;
    if (bucket && !allowed.includes(Number(bucket[1]))) problems.push(`${where}: another project's route`);
    if (numbers.some((value) => foreign.has(Number(value))) && (!bucket || ok))
      problems.push(`${where}: reached another project's data`);
    if (
      !bucket &&
      request.method !== 'GET' &&
      !/^\/(attachments|my\/profile|my\/preferences)\.json$/.test(path)
    )
      problems.push(`${where}: a write that names no project`);
    if (!bucket && numbers.some((value) => fake.recordings.has(Number(value))))
      problems.push(`${where}: an item's own route, which does not say its project`);
  }
  return problems;
}

/** What the agent saw of other projects: their names, or their IDs in a successful answer. */
function leaks(fake: FakeBasecamp, outcomes: Outcome[], allowed: readonly number[]): string[] {
  const others = fake.projects.filter((project) => !allowed.includes(project.id));
  const problems: string[] = [];
  for (const outcome of outcomes) {
    for (const project of others) {
      if (outcome.text.includes(project.name)) problems.push(`${outcome.tool}: shows "${project.name}"`);
      if (outcome.code === 'ok' && new RegExp(`\\b${project.id}\\b`).test(JSON.stringify(outcome.structured)))
        problems.push(`${outcome.tool}: answers with project ${project.id}`);
    }
  }
  return problems;
}

/** Tools a limited server refuses whatever the project: they change or list the account, not a project. */
const ACCOUNT_TOOLS = [
  'list_templates',
  'create_project_from_template',
  'create_template',
  'create_project',
  'create_message_type',
  'mark_notifications_read',
  'out_of_office',
  'list_lineup_markers',
  'create_lineup_marker',
  'rename_account',
  'set_account_logo',
  'remove_account_logo',
];

/** Steps that fail only because the step before them was refused (they use its answer). */
const DEPENDENT = [
  'get_project_construction',
  'rename_template',
  'trash_template',
  'trash_project',
  'update_message_type',
  'delete_message_type',
  'update_lineup_marker',
  'delete_lineup_marker',
  'update_chatbot',
  'delete_chatbot',
];

const failed = (outcomes: Outcome[], code: string, text?: string) => [
  ...new Set(
    outcomes
      .filter((outcome) => outcome.code === code && (text === undefined || outcome.text.includes(text)))
      .map((outcome) => outcome.tool),
  ),
];

// Each runs the whole scenario (about 150 calls) on its own fake: slow on a loaded machine.
describe('a server limited to some projects, over every tool', { timeout: 120_000 }, () => {
  it('the scenario covers every tool', () => {
    const covered = new Set(SCENARIO.map((step) => step.tool));
    expect(namedSpecs().filter(({ name }) => !covered.has(name))).toEqual([]);
  });

  it('unlimited, the scenario reaches both projects (so the checks below can fail)', async () => {
    const { fake, outcomes, requests } = await runScenario(undefined, 'none');
    expect(outcomes.filter((outcome) => outcome.code !== 'ok')).toEqual([]);
    expect(trespasses(fake, requests, [LAPTOP]).length).toBeGreaterThan(20);
    expect(leaks(fake, outcomes, [LAPTOP]).length).toBeGreaterThan(3);
  });

  it("an agent that names each item's project reaches only the listed one, and every tool works there", async () => {
    const { fake, outcomes, requests } = await runScenario([LAPTOP], 'true-project');
    expect(trespasses(fake, requests, [LAPTOP])).toEqual([]);
    expect(leaks(fake, outcomes, [LAPTOP])).toEqual([]);
    // Refused before any request: the account's own tools, and everything in the other project.
    expect(failed(outcomes, 'PERMISSION_DENIED', 'does not name a project').sort()).toEqual(
      [...ACCOUNT_TOOLS].sort(),
    );
    const locatorSteps = outcomes.filter((outcome) => outcome.text.includes(`project ${LOCATOR} is not one`));
    expect(locatorSteps.length).toBeGreaterThan(15);
    const broken = outcomes.filter(
      (outcome) =>
        outcome.code !== 'ok' &&
        !ACCOUNT_TOOLS.includes(outcome.tool) &&
        !DEPENDENT.includes(outcome.tool) &&
        !locatorSteps.includes(outcome),
    );
    expect(broken.map((outcome) => `${outcome.tool}: ${outcome.text.slice(0, 300)}`)).toEqual([]);
  });

  it("an agent that names the listed project for another project's items gets NOT_FOUND, never their data", async () => {
    const { fake, outcomes, requests } = await runScenario([LAPTOP], LAPTOP);
    expect(trespasses(fake, requests, [LAPTOP])).toEqual([]);
    expect(leaks(fake, outcomes, [LAPTOP])).toEqual([]);
    expect(failed(outcomes, 'NOT_FOUND')).toContain('get_checkin_question');
  });

  it('an agent that names an unlisted project is refused before any request about it', async () => {
    const { fake, outcomes, requests } = await runScenario([LAPTOP], LOCATOR);
    expect(trespasses(fake, requests, [LAPTOP])).toEqual([]);
    expect(leaks(fake, outcomes, [LAPTOP])).toEqual([]);
    expect(failed(outcomes, 'PERMISSION_DENIED', `project ${LOCATOR} is not one`)).toContain('get_todo');
  });

  it('an agent that leaves project_id out is asked for it, and no item is reached by its own route', async () => {
    const { fake, outcomes, requests } = await runScenario([OLD_SITE], 'none');
    expect(trespasses(fake, requests, [OLD_SITE])).toEqual([]);
    expect(leaks(fake, outcomes, [OLD_SITE])).toEqual([]);
    expect(failed(outcomes, 'INVALID_INPUT', 'project_id is required')).toEqual(
      expect.arrayContaining(['get_todo', 'complete_todo', 'list_comments', 'update_todo', 'get_document']),
    );
    // Nothing was written but your own profile: no file is even sent before its item's project is known.
    const writes = requests.filter((request) => request.method !== 'GET').map((request) => request.path);
    expect(new Set(writes)).toEqual(
      new Set(['my/profile', 'my/preferences'].map((route) => `/${fake.accountId}/${route}.json`)),
    );
  });
});

/** The error `run` throws, as `{ code, message, details }`. */
function thrown(run: () => unknown): { code: string; message: string; details: unknown } {
  try {
    run();
  } catch (error) {
    if (McpToolError.isInstance(error))
      return { code: error.code, message: error.message, details: error.details };
    return { code: 'OTHER', message: String(error), details: undefined };
  }
  return { code: 'NONE', message: '', details: undefined };
}

describe('the allowlist in the client', () => {
  const list = new ProjectAllowlist([1001, 1002]);
  const api = 'https://3.basecampapi.com/999';

  it('sends a project route only for a listed project, and says which ones are', () => {
    expect(list.check('GET', '/buckets/1001/todos/5.json')).toEqual({ accountWide: false });
    expect(list.check('PUT', '/projects/1002.json')).toEqual({ accountWide: false });
    expect(list.check('GET', '/projects/1002/people.json')).toEqual({ accountWide: false });
    for (const path of ['/buckets/1003/todos/5.json', '/projects/1003.json', '/projects/1003/gauge.json']) {
      const refused = thrown(() => list.check('GET', path));
      expect(refused.code, path).toBe('PERMISSION_DENIED');
      expect(refused.message).toContain('1001, 1002');
      expect(refused.details).toEqual({ allowed_projects: [1001, 1002] });
    }
  });

  it('refuses an item route that names no project, and account-wide writes, but sends the safe ones', () => {
    for (const [method, path] of [
      ['GET', '/todos/5.json'],
      ['PUT', '/todos/5.json'],
      ['POST', '/recordings/5/comments.json'],
      ['GET', '/templates.json'],
      ['POST', '/projects.json'],
      ['PUT', '/account/name.json'],
      ['PUT', '/my/unreads.json'],
      ['DELETE', '/my/profile.json'],
    ] as const) {
      const refused = thrown(() => list.check(method, path));
      expect(refused.code, `${method} ${path}`).toBe('PERMISSION_DENIED');
      expect(refused.message).toContain('give the tool a project_id of those projects');
    }
    for (const [method, path] of [
      ['GET', '/projects.json'],
      ['GET', '/projects/recordings.json'],
      ['GET', '/search.json'],
      ['GET', '/reports/todos/assigned/7.json'],
      ['GET', '/my/readings.json'],
      ['POST', '/attachments.json'],
      ['PUT', '/my/profile.json'],
    ] as const) {
      expect(list.check(method, path), `${method} ${path}`).toEqual({ accountWide: true });
    }
  });

  it('refuses a route that would be sent as another one, and checks Link URLs and project queries', () => {
    for (const path of [
      '/buckets/1001/../1003/todos/5.json',
      '/buckets/1001/%2e%2e/1003/todos/5.json',
      '/buckets/1001/todos/5.json/../../../todos/5.json',
      '//evil.example/999/projects.json',
    ]) {
      expect(thrown(() => list.check('GET', path)).code, path).toBe('PERMISSION_DENIED');
    }
    expect(list.check('GET', `${api}/buckets/1001/todos.json?page=2`)).toEqual({ accountWide: false });
    expect(list.check('GET', `${api}/projects.json?page=3`)).toEqual({ accountWide: true });
    expect(thrown(() => list.check('GET', `${api}/buckets/1003/todos.json?page=2`)).code).toBe(
      'PERMISSION_DENIED',
    );
    expect(thrown(() => list.check('GET', `${api}/todos/5.json`)).code).toBe('PERMISSION_DENIED');
    expect(thrown(() => list.check('GET', `${api}/projects/recordings.json?bucket=1001,1003`)).code).toBe(
      'PERMISSION_DENIED',
    );
    expect(thrown(() => list.check('GET', '/projects/recordings.json', { bucket: '1001,1003' })).code).toBe(
      'PERMISSION_DENIED',
    );
    expect(thrown(() => list.check('GET', '/search.json', { bucket_id: 1003 })).code).toBe(
      'PERMISSION_DENIED',
    );
    expect(list.check('GET', '/search.json', { bucket_id: 1001, q: 'x' })).toEqual({ accountWide: true });
    expect(list.check('GET', '/reports/gauges.json', { bucket_ids: '1002,1001' })).toEqual({
      accountWide: true,
    });
  });

  it('leaves out every record that refers to an unlisted project, at any depth', () => {
    const url = (project: number, rest = 'messages/9') =>
      `https://3.basecamp.com/999/buckets/${project}/${rest}`;
    const readings = {
      unreads: [
        { id: 1, app_url: url(1003), bucket_name: 'Other' },
        { id: 2, app_url: url(1001), bucket_name: 'Ours' },
      ],
      reads: [],
    };
    expect(list.filter('/my/readings.json', readings)).toEqual({
      unreads: [{ id: 2, app_url: url(1001), bucket_name: 'Ours' }],
      reads: [],
    });
    const reminders = [
      { reminder_id: 1, question: { id: 5, bucket: { id: 1003, name: 'Other' } } },
      { reminder_id: 2, question: { id: 6, bucket: { id: 1002, name: 'Ours' } } },
    ];
    expect(list.filter('/my/question_reminders.json', reminders)).toEqual([reminders[1]]);
    // A body that links to another project is text, not a reference: the record stays.
    const linked = [{ id: 3, bucket: { id: 1001 }, content: `see ${url(1003)}`, creator: { id: 7 } }];
    expect(list.filter('/search.json', linked)).toEqual(linked);
    // In the project list, the projects themselves (none without an ID).
    const projects = [{ id: 1003, url: `${api}/projects/1003.json` }, { id: 1001 }, { name: 'no id' }];
    expect(list.filter(`${api}/projects.json?page=2`, projects)).toEqual([{ id: 1001 }]);
    // An answer that is itself another project's record is refused.
    expect(thrown(() => list.filter('/my/profile.json', { id: 1, bucket: { id: 1003 } })).code).toBe(
      'PERMISSION_DENIED',
    );
  });

  it('reads BASECAMP_PROJECTS and the setting strictly; an empty list allows no project', () => {
    expect([...(parseProjects(undefined, ' 1001, 1002 ')?.ids ?? [])]).toEqual([1001, 1002]);
    expect(parseProjects(undefined, '')).toBeUndefined();
    expect(parseProjects(undefined, undefined)).toBeUndefined();
    for (const bad of ['1001,,1002', '1001;1002', 'laptop', '-1', '0', '99999999999999999']) {
      expect(() => parseProjects(undefined, bad), bad).toThrow(/BASECAMP_PROJECTS must be project IDs/);
    }
    expect(() => parseProjects([1001, 0], undefined)).toThrow(/projects must be Basecamp project IDs/);
    const none = parseProjects([], '1001');
    expect(none?.named).toBe('none');
    expect(thrown(() => none?.check('GET', '/buckets/1001/todos.json')).code).toBe('PERMISSION_DENIED');
    expect(BasecampConfigSchema.safeParse({ projects: [1001] }).success).toBe(true);
    expect(BasecampConfigSchema.safeParse({ projects: ['1001'] }).success).toBe(false);
    expect(BasecampConfigSchema.safeParse({ projects: [0] }).success).toBe(false);
  });
});

describe('list_projects and get_project_tools on a limited server', () => {
  it('lists only the listed projects, with honest paging, also when Basecamp answers 304', async () => {
    const fake = await startFakeBasecamp();
    fakes.push(fake);
    const provider = createBasecampProvider({
      apiUrl: fake.url,
      accessToken: fake.accessToken,
      accountId: fake.accountId,
      env: {},
      projects: [LOCATOR, OLD_SITE],
    });
    expect(provider.instructions).toContain(
      `Limited to projects ${LOCATOR}, ${OLD_SITE}: always pass project_id`,
    );
    const connection = await connectInMemory(new ToolRegistry().use(provider));
    try {
      const call = async (args: Record<string, unknown>) =>
        resultData<{ items: { id: number }[]; has_more: boolean; next_page: number | null; total?: number }>(
          await connection.client.callTool({ name: 'list_projects', arguments: args }),
        );
      for (let round = 0; round < 2; round++) {
        const first = await call({ status: 'all', limit: 1 });
        expect(first.items.map((project) => project.id)).toEqual([LOCATOR]);
        expect(first).toMatchObject({ has_more: true, next_page: 2 });
        expect(first.total).toBeUndefined();
        const second = await call({ status: 'all', limit: 1, page: 2 });
        expect(second.items.map((project) => project.id)).toEqual([OLD_SITE]);
        expect(second).toMatchObject({ has_more: false, next_page: null });
        const active = await call({});
        expect(active.items.map((project) => project.id)).toEqual([LOCATOR]);
        expect(active.has_more).toBe(false);
      }
      expect(fake.requests.some((request) => request.status === 304)).toBe(true);

      const tools = resultData<{ id: number }>(
        await connection.client.callTool({ name: 'get_project_tools', arguments: { project_id: LOCATOR } }),
      );
      expect(tools.id).toBe(LOCATOR);
      fake.resetLog();
      const refused = errorBody(
        await connection.client.callTool({ name: 'get_project_tools', arguments: { project_id: LAPTOP } }),
      );
      expect(refused).toMatchObject({
        error_code: 'PERMISSION_DENIED',
        allowed_projects: [LOCATOR, OLD_SITE],
      });
      expect(refused.message).toContain(`Basecamp project ${LAPTOP} is not one this server may use`);
      expect(fake.requests).toEqual([]);
    } finally {
      await connection.close();
    }
  });
});
