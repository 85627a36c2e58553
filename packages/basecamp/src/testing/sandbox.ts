import { randomBytes } from 'node:crypto';
import type { HostedSandboxFake, ToolProvider } from '@x/mcp-core';
import type { SandboxHandle } from '@x/mcp-core/node';
import { createBasecampProvider } from '../index.js';
import { type FakeIdentity, startFakeBasecamp } from './fake-basecamp.js';
import { ACCOUNT_ID } from './fixtures.js';

/**
 * `basecamp-mcp --sandbox`: the Basecamp tools on a fresh fake Basecamp in this process. The fake
 * enforces Basecamp's usual budget (50 requests per 10 s), so the sandbox shows the limiter at work.
 */
export async function createSandbox(
  options: {
    toolsets?: string | readonly string[] | undefined;
    dynamicToolsets?: boolean | undefined;
    projects?: readonly number[] | undefined;
  } = {},
): Promise<SandboxHandle<ToolProvider>> {
  const fake = await startFakeBasecamp({ rateLimit: { requests: 50, windowMs: 10_000 } });
  return {
    provider: createBasecampProvider({
      apiUrl: fake.url,
      launchpadUrl: fake.launchpadUrl,
      accessToken: fake.accessToken,
      accountId: fake.accountId,
      env: {},
      ...(options.toolsets === undefined ? {} : { toolsets: options.toolsets }),
      ...(options.dynamicToolsets === undefined ? {} : { dynamicToolsets: options.dynamicToolsets }),
      ...(options.projects === undefined ? {} : { projects: options.projects }),
    }),
    description: `fake Basecamp at ${fake.url}/${fake.accountId} (nothing leaves this machine)`,
    close: fake.close,
  };
}

/** A person of the hosted sandbox: who they are, and whether the sandbox's allowlist admits them. */
export interface SandboxPerson {
  identity: FakeIdentity;
  /** Their account is on the sandbox's allowlist (`allowedAccounts`). */
  allowed: boolean;
}

/** The hosted sandbox's people: two of Honcho Design (allowed), one of another account (refused). */
export const SANDBOX_PEOPLE: readonly SandboxPerson[] = [
  {
    identity: {
      id: 1049715913,
      firstName: 'Victor',
      lastName: 'Cooper',
      email: 'victor@honchodesign.com',
      accounts: [{ id: Number(ACCOUNT_ID), name: 'Honcho Design' }],
    },
    allowed: true,
  },
  {
    identity: {
      id: 1049715930,
      firstName: 'Sharon',
      lastName: 'Bradford',
      email: 'sharon@honchodesign.com',
      accounts: [{ id: Number(ACCOUNT_ID), name: 'Honcho Design' }],
    },
    allowed: true,
  },
  {
    identity: {
      id: 1049716001,
      firstName: 'Oscar',
      lastName: 'Outsider',
      email: 'oscar@elsewhere.example',
      accounts: [{ id: 555555555, name: 'Elsewhere Inc' }],
    },
    allowed: false,
  },
];

/**
 * `x-mcp-server --http --auth oauth --sandbox`: a fake Basecamp and Launchpad on 127.0.0.1 for
 * the whole hosted server (this package's connection declares it). Its Launchpad shows a sign-in
 * page to pick one of {@link SANDBOX_PEOPLE}; every one sees the fake's data (Honcho Design); the
 * allowlist admits Honcho Design only.
 */
export async function createHostedSandbox(): Promise<HostedSandboxFake> {
  const client = {
    id: `sandbox-${randomBytes(6).toString('hex')}`,
    secret: randomBytes(24).toString('base64url'),
  };
  const fake = await startFakeBasecamp({
    client,
    rateLimit: { requests: 50, windowMs: 10_000 },
    launchpad: { people: SANDBOX_PEOPLE.map((person) => person.identity) },
  });
  return {
    settings: { apiUrl: fake.url, contact: 'sandbox@localhost' },
    signIn: {
      name: 'Launchpad',
      clientId: client.id,
      clientSecret: client.secret,
      url: fake.launchpadUrl,
      allowedAccounts: [ACCOUNT_ID],
      people: SANDBOX_PEOPLE.map(({ identity }) => ({
        name: `${identity.firstName} ${identity.lastName}`,
        email: identity.email,
        accounts: (identity.accounts ?? []).map((account) => ({
          id: String(account.id),
          name: account.name,
        })),
      })),
    },
    description: `Fake Basecamp (Honcho Design's data): ${fake.url}; fake Launchpad: ${fake.launchpadUrl}`,
    close: fake.close,
  };
}
