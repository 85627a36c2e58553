import { ToolRegistry } from '@x/mcp-core';
import { connectInMemory } from '@x/mcp-core/testing';
import { afterEach, describe, expect, it } from 'vitest';
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

describe('a server limited to some projects, over every tool', () => {
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
