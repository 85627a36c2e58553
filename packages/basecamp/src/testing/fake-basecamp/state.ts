import type { FakeBasecampOptions } from '../fake-basecamp.js';
import type { FakeLaunchpad } from '../fake-launchpad.js';
import { FAMILIES } from '../families/index.js';
import { buildRecordings, type FakeProject, type FakeRecording, PROJECTS } from '../fixtures.js';

/** Answers the current request: the status, a body (a string as is, else JSON) and headers. */
export type Reply = (status: number, body?: unknown, headers?: Record<string, string>) => void;

/** The API's state: recordings, projects, the request budget; bearer tokens are Launchpad's. */
export interface BasecampState {
  options: FakeBasecampOptions;
  /** Launchpad's access tokens, which the API accepts. */
  accessTokens: FakeLaunchpad['accessTokens'];
  recordings: Map<number, FakeRecording>;
  projects: FakeProject[];
  /** When the API requests inside the rate-limit window arrived. */
  budget: number[];
  /** The ID the next created recording gets. */
  nextId: number;
}

/** A fresh state: the fixtures' projects and recordings (copied), seeded by every family. */
export function createState(options: FakeBasecampOptions, launchpad: FakeLaunchpad): BasecampState {
  return {
    options,
    accessTokens: launchpad.accessTokens,
    recordings: new Map(
      [...buildRecordings(), ...FAMILIES.flatMap((family) => family.seed?.() ?? [])].map((record) => [
        record.id,
        record,
      ]),
    ),
    projects: structuredClone(PROJECTS),
    budget: [],
    nextId: 1_100_000_000,
  };
}
