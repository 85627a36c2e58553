import { ToolRegistry } from '@x/mcp-core';
import { type ConnectedClient, connectInMemory } from '@x/mcp-core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBasecampProvider } from '../index.js';
import {
  CARDS,
  CHECKINS,
  CLIENTS,
  DOCK,
  type FakeBasecamp,
  IDS,
  LAPTOP,
  LOCATOR,
  startFakeBasecamp,
  TEMPLATE_ID,
} from '../testing/index.js';
import { createContractChecker } from './contract.js';
import { loadOpenApi } from './document.js';
import { namedSpecs } from './reports.js';
import { type Previous, SCENARIO } from './scenario.js';

// Every tool, called through a real MCP client against the fake Basecamp; every request it sends
// is checked against the OpenAPI document (operation, query parameters, path IDs, body schema),
// and every operation a tool declares for the coverage table is one it really sends.

let fake: FakeBasecamp;
let connection: ConnectedClient;
const check = createContractChecker(loadOpenApi());

beforeAll(async () => {
  fake = await startFakeBasecamp();
  connection = await connectInMemory(
    new ToolRegistry().use(
      createBasecampProvider({
        apiUrl: fake.url,
        accessToken: fake.accessToken,
        accountId: fake.accountId,
        rateLimitRequests: 10_000,
        env: {},
        toolsets: 'all',
      }),
    ),
  );
});
afterAll(async () => {
  await connection.close();
  await fake.close();
});

describe('every request the tools send is in the OpenAPI document', () => {
  it('has a scenario step for every tool', () => {
    const covered = new Set(SCENARIO.map((step) => step.tool));
    expect(
      namedSpecs()
        .filter(({ name }) => !covered.has(name))
        .map(({ name }) => name),
    ).toEqual([]);
  });

  it('sends only documented requests, and reaches the operations each tool declares', async () => {
    const problems: string[] = [];
    const reachedBy = new Map<string, Set<string>>();
    const ids = { LAPTOP, LOCATOR, DOCK, IDS, CARDS, CHECKINS, CLIENTS, TEMPLATE_ID };
    let previous: Previous;
    for (const step of SCENARIO) {
      fake.resetLog();
      const result = await connection.client.callTool({
        name: step.tool,
        arguments: step.args(ids, previous),
      });
      previous = result.structuredContent as Previous;
      if (result.isError) {
        problems.push(`${step.tool} failed: ${JSON.stringify(result.content).slice(0, 300)}`);
        continue;
      }
      for (const request of fake.requests) {
        const { operation, problems: found } = check(request, fake.accountId);
        problems.push(...found.map((problem) => `${step.tool}: ${problem}`));
        if (operation) reachedBy.set(step.tool, (reachedBy.get(step.tool) ?? new Set()).add(operation));
      }
    }
    for (const { name, spec } of namedSpecs()) {
      for (const operation of spec.operations) {
        if (!reachedBy.get(name)?.has(operation)) {
          problems.push(`${name} declares ${operation} but sent no such request in the scenario`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
