// `x-mcp-server policy explain | check` (the built bin) on the policy keys of decision 0028: the
// generic `match.account` and `projects`, and their older names from the sign-in provider's id.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProcess } from '@x/mcp-core/testing';
import { describe, expect, it } from 'vitest';
import { SERVER_BIN as bin } from './oauth/fixture.js';

describe('x-mcp-server policy explain | check (decision 0028: the generic names)', () => {
  const policyCommand = (...args: string[]) =>
    runProcess({ command: process.execPath, args: [bin, 'policy', ...args], env: { MCP_POLICY: undefined } });
  const OLDER = `{"rules": [
  {"name": "contractors", "match": {"domain": "contractor.example"}, "basecampProjects": [1001, 1002]},
  {"match": {"basecampAccount": 999}, "readOnly": true}
]}`;

  it('reads the older keys and the generic ones alike, and answers with the generic names', {
    timeout: 120_000,
  }, async () => {
    const folder = await mkdtemp(join(tmpdir(), 'policy-command-'));
    try {
      const older = join(folder, 'older.json');
      const generic = join(folder, 'generic.json');
      await writeFile(older, OLDER);
      await writeFile(
        generic,
        OLDER.replace('basecampProjects', 'projects').replace('basecampAccount', 'account'),
      );
      for (const file of [older, generic]) {
        const checked = await policyCommand('check', file);
        expect(checked.stdout, checked.stderr).toContain(`${file}: valid, 2 rules`);
        const explained = await policyCommand('explain', 'pat@contractor.example', '--policy', file);
        expect(explained.code, explained.stderr).toBe(0);
        expect(explained.stdout).toContain('  projects: 1001, 1002\n');
        const passed = await policyCommand('explain', 'ana@example.com', '--policy', file);
        expect(passed.stdout).toContain('passed over: rule 2 (they match an account; give --account <id>)');
        const inAccount = await policyCommand(
          'explain',
          'ana@example.com',
          '--account',
          '999',
          '--policy',
          file,
        );
        expect(inAccount.stdout).toContain('ana@example.com, account 999: rule 2 ');
      }
      const both = join(folder, 'both.json');
      await writeFile(both, '{"default": {"projects": [1], "basecampProjects": [1]}}');
      const refused = await policyCommand('check', both);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('"basecampProjects" is the older name of "projects"');
      const help = await policyCommand('--help');
      expect(help.stdout).toContain('--account <id>   the Basecamp account the person signs in to');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
