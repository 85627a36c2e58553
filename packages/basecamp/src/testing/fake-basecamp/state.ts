import { randomBytes } from 'node:crypto';
import type { FakeBasecampOptions, FakeIdentity } from '../fake-basecamp.js';
import { FAMILIES } from '../families/index.js';
import { buildRecordings, type FakeProject, type FakeRecording, PROJECTS } from '../fixtures.js';

/** Answers the current request: the status, a body (a string as is, else JSON) and headers. */
export type Reply = (status: number, body?: unknown, headers?: Record<string, string>) => void;

/** What the fake's Launchpad and API share: tokens, sign-ins, recordings, projects, counters. */
export interface BasecampState {
  options: FakeBasecampOptions;
  client: { id: string; secret: string };
  /** Lifetime of issued access tokens in seconds. */
  lifetime: number;
  accessTokens: Map<string, { expiresAt: number; identity?: FakeIdentity }>;
  refreshTokens: Set<string>;
  refreshIdentities: Map<string, FakeIdentity>;
  codes: Map<string, { redirectUri: string; identity?: FakeIdentity }>;
  /** Who approves the next `/authorization/new` requests (see `signInAs`). */
  signingIn: FakeIdentity | undefined;
  recordings: Map<number, FakeRecording>;
  projects: FakeProject[];
  /** When the API requests inside the rate-limit window arrived. */
  budget: number[];
  /** The ID the next created recording gets. */
  nextId: number;
  issueTokens(): { accessToken: string; refreshToken: string };
}

/** A fresh state: the fixtures' projects and recordings (copied), no tokens yet. */
export function createState(options: FakeBasecampOptions): BasecampState {
  const lifetime = options.tokenLifetimeSeconds ?? 1_209_600;
  const accessTokens = new Map<string, { expiresAt: number; identity?: FakeIdentity }>();
  const refreshTokens = new Set<string>();
  return {
    options,
    client: options.client ?? { id: 'fake-client-id', secret: 'fake-client-secret' },
    lifetime,
    accessTokens,
    refreshTokens,
    refreshIdentities: new Map(),
    codes: new Map(),
    signingIn: undefined,
    recordings: new Map(
      [...buildRecordings(), ...FAMILIES.flatMap((family) => family.seed?.() ?? [])].map((record) => [
        record.id,
        record,
      ]),
    ),
    projects: structuredClone(PROJECTS),
    budget: [],
    nextId: 1_100_000_000,
    issueTokens: () => {
      const accessToken = `bc-access-${randomBytes(12).toString('hex')}`;
      const refreshToken = `bc-refresh-${randomBytes(12).toString('hex')}`;
      accessTokens.set(accessToken, { expiresAt: Date.now() + lifetime * 1000 });
      refreshTokens.add(refreshToken);
      return { accessToken, refreshToken };
    },
  };
}
