import { mkdtemp, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@x/mcp-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_POLICY_BYTES, PolicyFile, type PolicyReload, readPolicyFile } from './policy-file.js';

const READ_ONLY = '{"default": {"readOnly": true}}\n';
const DENY = '{"default": {"deny": true}}\n';

let dir: string;
let file: string;
const opened: PolicyFile[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'x-policy-'));
  file = join(dir, 'policy.json');
  await writeFile(file, READ_ONLY);
});
afterEach(async () => {
  for (const policy of opened.splice(0)) policy.close();
  await rm(dir, { recursive: true, force: true });
});

async function open(): Promise<PolicyFile> {
  const policy = await PolicyFile.open(file, { debounceMs: 20 });
  opened.push(policy);
  return policy;
}

/** The next reload that satisfies `test` (reloads in between, such as a half-written file, are passed over). */
function nextReload(policy: PolicyFile, test: (reload: PolicyReload) => boolean): Promise<PolicyReload> {
  return new Promise((resolve) => {
    const stop = policy.onReload((reload) => {
      if (!test(reload)) return;
      stop();
      resolve(reload);
    });
  });
}

const denies = (policy: PolicyFile) => policy.current.decide({ email: 'a@example.com' }).deny;

describe('PolicyFile', () => {
  it('takes a changed file when it is written in place', async () => {
    const policy = await open();
    expect(denies(policy)).toBe(false);
    const reloaded = nextReload(policy, (reload) => reload.outcome === 'reloaded');
    await writeFile(file, DENY);
    expect((await reloaded).policy.digest).toBe(policy.current.digest);
    expect(denies(policy)).toBe(true);
  });

  it('takes a file an editor replaced by renaming a new one over it', async () => {
    const policy = await open();
    const reloaded = nextReload(policy, (reload) => reload.outcome === 'reloaded');
    await writeFile(join(dir, '.policy.json.swp'), DENY);
    await rename(join(dir, '.policy.json.swp'), file);
    await reloaded;
    expect(denies(policy)).toBe(true);
    // The new file is watched as well as the old one was.
    const again = nextReload(policy, (reload) => reload.outcome === 'reloaded');
    await writeFile(file, READ_ONLY);
    await again;
    expect(denies(policy)).toBe(false);
  });

  it('follows a symlink swapped in the directory (a Kubernetes ConfigMap)', async () => {
    await writeFile(join(dir, 'v1.json'), READ_ONLY);
    await writeFile(join(dir, 'v2.json'), DENY);
    await unlink(file);
    await symlink(join(dir, 'v1.json'), file);
    const policy = await open();
    const reloaded = nextReload(policy, (reload) => reload.outcome === 'reloaded');
    await symlink(join(dir, 'v2.json'), join(dir, 'next'));
    await rename(join(dir, 'next'), file);
    await reloaded;
    expect(denies(policy)).toBe(true);
  });

  it('keeps the policy in force when the new version is bad, and logs why', async () => {
    const errors: string[] = [];
    const logger = {
      debug: () => {},
      info: () => {},
      warn: () => {},
      error: (message: string, fields?: Record<string, unknown>) =>
        errors.push(`${message} ${fields?.error}`),
      child: () => logger,
    };
    const policy = await PolicyFile.open(file, { debounceMs: 20, logger });
    opened.push(policy);
    const before = policy.current;
    const rejected = nextReload(
      policy,
      (reload) => reload.outcome === 'rejected' && /2:12/.test(reload.error.message),
    );
    await writeFile(file, '{"default":\n  {"deny": "yes"}}');
    const reload = await rejected;
    expect(reload.policy).toBe(before);
    expect(policy.current).toBe(before);
    expect(errors.at(-1)).toContain(`policy ${file} not reloaded, the previous one stays in force`);
    expect(errors.at(-1)).toContain(`${file}:2:12: default.deny: Invalid input: expected boolean`);
    // Fixed: taken again.
    const reloaded = nextReload(policy, (next) => next.outcome === 'reloaded');
    await writeFile(file, DENY);
    await reloaded;
    expect(denies(policy)).toBe(true);
  });

  it('keeps the policy in force when the file is deleted', async () => {
    const policy = await open();
    const before = policy.current;
    const rejected = nextReload(policy, (reload) => reload.outcome === 'rejected');
    await unlink(file);
    expect(await rejected).toMatchObject({ error: { message: `Cannot read the policy ${file}: ENOENT.` } });
    expect(policy.current).toBe(before);
  });

  it('reload() (SIGHUP) reads the file now; an unchanged file changes nothing', async () => {
    const policy = await open();
    const before = policy.current;
    expect(await policy.reload()).toMatchObject({ outcome: 'unchanged' });
    expect(policy.current).toBe(before);
    policy.close();
    // Not watching any more: only reload() takes the change.
    await writeFile(file, DENY);
    expect(denies(policy)).toBe(false);
    expect(await policy.reload()).toMatchObject({ outcome: 'reloaded' });
    expect(denies(policy)).toBe(true);
  });

  it('reloads asked for together run one after the other, the last reading the last version', async () => {
    const policy = await open();
    policy.close();
    const first = policy.reload();
    await writeFile(file, DENY);
    const second = policy.reload();
    await first;
    expect((await second).outcome).toMatch(/reloaded|unchanged/);
    expect(denies(policy)).toBe(true);
  });
});

describe('readPolicyFile refuses hostile files before parsing them', () => {
  it('a file over the size limit', async () => {
    await writeFile(file, `{"default": {}, "$schema": "${'x'.repeat(MAX_POLICY_BYTES)}"}`);
    await expect(readPolicyFile(file)).rejects.toThrow(
      `The policy ${file} is ${MAX_POLICY_BYTES + 30} bytes; a policy may be at most ${MAX_POLICY_BYTES} bytes.`,
    );
  });

  it('a file that is not UTF-8', async () => {
    await writeFile(file, Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
    await expect(readPolicyFile(file)).rejects.toThrow(
      `Cannot read the policy ${file}: it is not UTF-8 text.`,
    );
  });

  it('a directory, a missing file', async () => {
    await expect(readPolicyFile(dir)).rejects.toThrow(ConfigError);
    await expect(readPolicyFile(join(dir, 'nope.json'))).rejects.toThrow(
      `Cannot read the policy ${join(dir, 'nope.json')}: ENOENT.`,
    );
  });

  it('a bad file at start: PolicyFile.open rejects with the line', async () => {
    await writeFile(file, '{\n  "rules": [{"match": {"email": "a@b"}, "rateLimit": "fast"}]\n}');
    await expect(PolicyFile.open(file)).rejects.toThrow(
      `${file}:2:54: rules[0].rateLimit: must be <count>/<unit>`,
    );
  });
});
