import { ConfigError } from '@x/mcp-core';
import { describe, expect, it } from 'vitest';
import { Policy, type PolicyNames, type PolicySignIn } from './policy.js';

const FILE = '/etc/x-mcp/policy.json';
/** The sign-in of the policies written before decision 0028 (their keys name it). */
const BASECAMP: PolicySignIn = { provider: 'basecamp', title: 'Basecamp', projects: true };

/** The example, one key per line so lines are easy to count. */
const EXAMPLE = `{
  "rules": [
    {"match": {"email": "ana@example.com"}, "readOnly": true},
    {"match": {"domain": "contractor.example"}, "basecampProjects": [1001], "rateLimit": "60/min", "name": "contractors"},
    {"match": {"basecampAccount": 999}, "toolsets": ["basecamp.todos"]},
    {"match": {"email": "x@y"}, "deny": true}
  ],
  "default": {}
}
`;

function problems(text: string, names: PolicyNames = { signIn: BASECAMP }): string {
  try {
    Policy.parse(text, FILE, names);
  } catch (error) {
    expect(ConfigError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('expected the policy to be refused');
}

describe('Policy.decide', () => {
  const policy = Policy.parse(EXAMPLE, FILE, { signIn: BASECAMP });

  it('applies the first rule that matches, with its line', () => {
    const ana = policy.decide({ email: 'Ana@Example.com', accountId: '999' });
    expect(ana).toMatchObject({ rule: 1, line: 3, readOnly: true, deny: false, toolsets: undefined });
    expect(ana.source).toBe("the server's policy (rule 1)");

    const contractor = policy.decide({ email: 'bo@contractor.example', accountId: '999' });
    expect(contractor).toMatchObject({ rule: 2, line: 4, name: 'contractors', projects: [1001] });
    expect(contractor.rateLimit).toEqual({ tokens: 60, periodMs: 60_000, text: '60/min' });
    expect(contractor.source).toBe('the server\'s policy (rule 2 "contractors")');

    expect(policy.decide({ email: 'cy@example.com', accountId: '999' })).toMatchObject({
      rule: 3,
      toolsets: ['basecamp.todos'],
      readOnly: false,
    });
    expect(policy.decide({ email: 'x@y', accountId: '1' })).toMatchObject({ rule: 4, deny: true });
  });

  it('falls back to the default, which is everything when empty', () => {
    const other = policy.decide({ email: 'cy@example.com', accountId: '1' });
    expect(other).toMatchObject({
      rule: 'default',
      line: 8,
      deny: false,
      readOnly: false,
      toolsets: undefined,
      projects: undefined,
      rateLimit: undefined,
    });
    expect(other.source).toBe("the server's policy (default rule)");
  });

  it('does not match a subdomain, or an email that only ends like the address', () => {
    expect(policy.decide({ email: 'bo@eu.contractor.example', accountId: '1' }).rule).toBe('default');
    expect(policy.decide({ email: 'xana@example.com', accountId: '1' }).rule).toBe('default');
  });

  it('needs every key of a match; lists of values match any of them', () => {
    const both = Policy.parse(
      JSON.stringify({
        rules: [{ match: { domain: ['a.example', 'b.example'], account: ['7', 8] }, readOnly: true }],
      }),
      FILE,
    );
    expect(both.decide({ email: 'p@b.example', accountId: '8' }).rule).toBe(1);
    expect(both.decide({ email: 'p@a.example', accountId: '7' }).rule).toBe(1);
    expect(both.decide({ email: 'p@a.example', accountId: '9' }).rule).toBe('default');
    expect(both.decide({ email: 'p@c.example', accountId: '7' }).rule).toBe('default');
  });

  it('explains which rules were passed over for want of an account', () => {
    const explained = policy.explain({ email: 'cy@example.com' });
    expect(explained.decision.rule).toBe('default');
    expect(explained.needAccount).toEqual([3]);
  });

  it('reads rate limits, "off", per-tool limits and a denying default', () => {
    const parsed = Policy.parse(
      JSON.stringify({
        rules: [
          { match: { email: 'admin@example.com' }, rateLimit: 'off' },
          {
            match: { email: 'bot@example.com' },
            rateLimit: '10/s',
            toolRateLimits: { basecamp_create_todo: '5/h' },
          },
        ],
        default: { deny: true },
      }),
      FILE,
    );
    expect(parsed.decide({ email: 'admin@example.com' }).rateLimit).toBe('off');
    const bot = parsed.decide({ email: 'bot@example.com' });
    expect(bot.rateLimit).toEqual({ tokens: 10, periodMs: 1000, text: '10/s' });
    expect(bot.toolRateLimits).toEqual({
      basecamp_create_todo: { tokens: 5, periodMs: 3_600_000, text: '5/h' },
    });
    expect(parsed.decide({ email: 'someone@example.com' })).toMatchObject({ rule: 'default', deny: true });
  });

  it('accepts an empty policy: everyone gets everything', () => {
    expect(Policy.parse('{}', FILE).decide({ email: 'a@b.c' })).toMatchObject({
      rule: 'default',
      deny: false,
    });
  });

  it('gives the same digest for the same bytes, another for others', () => {
    expect(Policy.parse(EXAMPLE, FILE, { signIn: BASECAMP }).digest).toBe(policy.digest);
    expect(Policy.parse(EXAMPLE.replace('60/min', '61/min'), FILE, { signIn: BASECAMP }).digest).not.toBe(
      policy.digest,
    );
  });
});

describe('Policy.parse refuses bad files, naming the line and column', () => {
  it('a JSON syntax error', () => {
    expect(problems('{\n  "rules": [\n    {"match": {"email": "a@b"},}\n  ]\n}')).toBe(
      `The policy ${FILE} is not valid JSON:\n  ${FILE}:3:32: expected a key in double quotes, found "}"`,
    );
  });

  it('a duplicate key', () => {
    expect(problems('{\n  "default": {},\n  "default": {"deny": true}\n}')).toContain(
      `${FILE}:3:3: duplicate key "default" (first at line 2, column 3)`,
    );
  });

  it('wrong types, each at its value', () => {
    const text = `{
  "rules": [
    {"match": {"email": "ana@example.com"}, "readOnly": "yes"},
    {"match": {"basecampAccount": -4}, "basecampProjects": [1001, "1002"]},
    {"match": {"domain": "*.example.com"}, "rateLimit": "12/fortnight"}
  ],
  "default": {"toolsets": "basecamp"}
}`;
    const message = problems(text);
    expect(message).toContain(
      `${FILE}:3:57: rules[0].readOnly: Invalid input: expected boolean, received string`,
    );
    expect(message).toContain(
      `${FILE}:4:35: rules[1].match.basecampAccount: Too small: expected number to be >0`,
    );
    expect(message).toContain(`${FILE}:4:67: rules[1].basecampProjects[1]: Invalid input: expected number`);
    expect(message).toContain(`${FILE}:5:26: rules[2].match.domain: `);
    expect(message).toContain(`${FILE}:5:57: rules[2].rateLimit: must be <count>/<unit>`);
    expect(message).toContain(
      `${FILE}:7:27: default.toolsets: Invalid input: expected array, received string`,
    );
  });

  it('unknown keys, at the key', () => {
    const message = problems(
      '{\n  "rules": [{"match": {"email": "a@b", "group": "x"}, "readonly": true}],\n  "defaults": {}\n}',
    );
    expect(message).toContain(`${FILE}:2:40: rules[0].match.group: unknown key`);
    expect(message).toContain(`${FILE}:2:55: rules[0].readonly: unknown key`);
    expect(message).toContain(`${FILE}:3:3: defaults: unknown key`);
  });

  it('a rule without match, an empty match, deny beside other settings', () => {
    const message = problems(
      '{"rules": [\n{"readOnly": true},\n{"match": {}},\n{"match": {"email": "a@b"}, "deny": true, "readOnly": true}\n]}',
    );
    expect(message).toContain(`${FILE}:2:1: rules[0].match: Invalid input`);
    expect(message).toContain(
      `${FILE}:3:11: rules[1].match: must name at least one of email, domain, account`,
    );
    expect(message).toContain(`${FILE}:4:55: rules[2].readOnly: has no effect beside "deny": true`);
  });

  it('toolsets and tools the server does not serve', () => {
    const names = {
      toolsets: ['basecamp', 'basecamp.todos', 'forge'],
      tools: ['basecamp_create_todo'],
      signIn: BASECAMP,
    };
    const message = problems(
      '{"default": {\n  "toolsets": ["basecamp.todos", "basecamp.todo"],\n  "toolRateLimits": {"basecamp_create_todos": "1/s"}\n}}',
      names,
    );
    expect(message).toContain(
      `${FILE}:2:34: default.toolsets[1]: unknown toolset "basecamp.todo" (this server serves: basecamp, basecamp.todos, forge)`,
    );
    expect(message).toContain(
      `${FILE}:3:22: default.toolRateLimits.basecamp_create_todos: "basecamp_create_todos" is not a tool this server serves`,
    );
    expect(() => Policy.parse('{"default": {"toolsets": ["basecamp.todos"]}}', FILE, names)).not.toThrow();
  });

  it('not an object at all', () => {
    expect(problems('[]')).toContain(
      `${FILE}:1:1: (the whole file): Invalid input: expected object, received array`,
    );
    expect(problems('"rules"')).toContain(`${FILE}:1:1: (the whole file):`);
  });

  it('a hostile file: thousands of bad rules list twenty problems, not all', () => {
    const rules = Array.from({ length: 900 }, () => ({ match: { email: 5 } }));
    const message = problems(JSON.stringify({ rules }));
    expect(message.split('\n')).toHaveLength(1 + 20 + 1);
    expect(message).toContain('(and 880 more)');
  });

  it('a hostile file: too many rules, huge lists', () => {
    const many = Array.from({ length: 1001 }, (_, index) => ({ match: { email: `u${index}@x.example` } }));
    expect(problems(JSON.stringify({ rules: many }))).toContain('rules: Too big');
    const projects = Array.from({ length: 10_001 }, (_, index) => index + 1);
    expect(problems(JSON.stringify({ default: { basecampProjects: projects } }))).toContain(
      'default.basecampProjects: Too big',
    );
  });

  it('a hostile file: __proto__ and prototype keys are unknown keys, nothing is polluted', () => {
    const message = problems(
      '{"__proto__": {"deny": true}, "default": {"toolRateLimits": {"__proto__": "1/s"}}}',
    );
    expect(message).toContain(`${FILE}:1:2: __proto__: unknown key`);
    expect(message).toContain(`${FILE}:1:62: default.toolRateLimits.__proto__: unknown key`);
    expect(({} as Record<string, unknown>).deny).toBeUndefined();
  });
});

describe('generic keys (decision 0028): match.account and projects, the older names as aliases', () => {
  const GENERIC = EXAMPLE.replace('"basecampProjects"', '"projects"').replace(
    '"basecampAccount"',
    '"account"',
  );
  const people = [
    { email: 'Ana@Example.com', accountId: '999' },
    { email: 'bo@contractor.example', accountId: '999' },
    { email: 'cy@example.com', accountId: '999' },
    { email: 'cy@example.com', accountId: '1' },
    { email: 'cy@example.com' },
    { email: 'x@y', accountId: '1' },
  ];

  it('an older file and its generic twin give every person the same decision', () => {
    const older = Policy.parse(EXAMPLE, FILE, { signIn: BASECAMP });
    expect(GENERIC).not.toContain('basecamp"');
    for (const generic of [
      Policy.parse(GENERIC, FILE, { signIn: BASECAMP }),
      // Without a sign-in known (a server that could serve several): the generic keys still read.
      Policy.parse(GENERIC, FILE),
    ]) {
      for (const person of people) {
        const { decision, needAccount } = generic.explain(person);
        const before = older.explain(person);
        expect({ ...decision, line: undefined }, person.email).toEqual({
          ...before.decision,
          line: undefined,
        });
        expect(needAccount).toEqual(before.needAccount);
      }
    }
    expect(Policy.parse(GENERIC, FILE, { signIn: BASECAMP }).decide(people[1] as never).projects).toEqual([
      1001,
    ]);
  });

  it('the aliases follow the sign-in provider: <id>Account, <id>Projects, the id in camelCase', () => {
    const signIn: PolicySignIn = { provider: 'team-chat', title: 'Team Chat', projects: true };
    const policy = Policy.parse(
      JSON.stringify({
        rules: [{ match: { teamChatAccount: 'T0ABC' }, teamChatProjects: [5] }],
      }),
      FILE,
      { signIn },
    );
    expect(policy.decide({ email: 'a@b.c', accountId: 'T0ABC' })).toMatchObject({ rule: 1, projects: [5] });
    // Another provider's older names are unknown keys, as any other key.
    const message = problems(JSON.stringify({ rules: [{ match: { basecampAccount: 1 } }] }), { signIn });
    expect(message).toContain('rules[0].match.basecampAccount: unknown key');
    expect(problems('{"default": {"basecampProjects": [1]}}', {})).toContain(
      'default.basecampProjects: unknown key',
    );
  });

  it('a rule that uses both names of one key is refused, at the older name', () => {
    const message = problems(`{"rules": [
  {"match": {"account": 1, "basecampAccount": 1}},
  {"match": {"email": "a@b"}, "projects": [1], "basecampProjects": [1]}
], "default": {"projects": [2], "basecampProjects": [2]}}`);
    expect(message).toContain(
      `${FILE}:2:47: rules[0].match.basecampAccount: "basecampAccount" is the older name of "account": use one of them, not both`,
    );
    expect(message).toContain(
      `${FILE}:3:68: rules[1].basecampProjects: "basecampProjects" is the older name of "projects": use one of them, not both`,
    );
    expect(message).toContain(`default.basecampProjects: "basecampProjects" is the older name of "projects"`);
  });

  it('projects with a sign-in that cannot narrow by project are refused, saying why', () => {
    const signIn: PolicySignIn = { provider: 'team-chat', title: 'Team Chat', projects: false };
    const message = problems(
      '{"rules": [{"match": {"email": "a@b"}, "projects": [1]}],\n "default": {"teamChatProjects": [2]}}',
      { signIn },
    );
    expect(message).toContain(
      `${FILE}:1:52: rules[0].projects: the Team Chat sign-in cannot narrow by project (its connection declares no project setting); remove it`,
    );
    expect(message).toContain(`${FILE}:2:34: default.teamChatProjects: the Team Chat sign-in cannot narrow`);
    expect(() => Policy.parse('{"default": {"readOnly": true}}', FILE, { signIn })).not.toThrow();
  });

  it('an account id names the sign-in; ids that are not digits are accepted, odd ones are not', () => {
    const message = problems('{"rules": [{"match": {"account": ["a b"]}}, {"match": {"account": 0}}]}');
    expect(message).toContain('rules[0].match.account');
    expect(message).toContain('rules[1].match.account');
    expect(problems('{"rules": [{"match": {"account": true}}]}')).toContain(
      'rules[0].match.account: must be the Basecamp account id, or a list of them',
    );
    const policy = Policy.parse('{"rules": [{"match": {"account": "org_7f3a"}, "deny": true}]}', FILE);
    expect(policy.decide({ email: 'a@b.c', accountId: 'org_7f3a' }).deny).toBe(true);
  });
});
