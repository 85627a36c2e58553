import { createHash } from 'node:crypto';
import { ConfigError } from '@x/mcp-core';
import { z } from 'zod';
import {
  type JsonPath,
  JsonSyntaxError,
  type LocatedJson,
  type Position,
  parseLocatedJson,
} from './policy-json.js';
import { RATE_FORMS, type Rate, readRate } from './rate-limit.js';

/*
 * The operator's policy (`MCP_POLICY`): who may use which tools. Rules are tried in order; the
 * first whose `match` fits the person applies, else `default`; nothing is merged between them.
 */

/** A provider id or one of its toolsets: `<provider>` or `<provider>.<toolset>`. */
const TOOLSET_NAME = /^[a-z0-9][a-z0-9_-]*(\.[a-z0-9][a-z0-9_-]*)?$/;
/** A served tool name (`<prefix><tool>`). */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
/** An account id of a sign-in, as `hosted_whoami` shows it (digits for most upstreams). */
const ACCOUNT_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** Whether `text` can be an account id of a sign-in (`policy explain --account`). */
export const isAccountId = (text: string): boolean => ACCOUNT_ID.test(text);

/**
 * The sign-in whose people the policy matches (its connection): what `match.account` and
 * `projects` mean, and the older names they keep (decision 0028).
 */
export interface PolicySignIn {
  /**
   * The sign-in provider's id: `<id>Account` and `<id>Projects` (the id in camelCase) are
   * accepted for `match.account` and `projects`: the names policies used before decision 0028.
   */
  provider: string;
  /** Its name in messages: "the <title> account id". */
  title: string;
  /** Whether it narrows its tools to some projects (its connection declares how); else `projects` is an error. */
  projects: boolean;
}

/** `team-chat` → `teamChat`. */
const camelCase = (id: string) => id.replace(/[-_]+([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

/** The keys a policy file may use for an account match and a project setting, with their older aliases. */
function keysOf(signIn: PolicySignIn | undefined) {
  const alias = signIn ? camelCase(signIn.provider) : undefined;
  return {
    accountAlias: alias ? `${alias}Account` : undefined,
    projectsAlias: alias ? `${alias}Projects` : undefined,
  };
}

const oneOrMany = <T extends z.ZodType>(item: T, what: string) =>
  z.union([item, z.array(item).min(1).max(1_000)], { error: `must be ${what}, or a list of them` });

const email = z
  .string()
  .max(320)
  .regex(/^[^@\s]+@[^@\s]+$/, 'must be an email address (name@domain)');
const domain = z
  .string()
  .max(253)
  .regex(
    /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/i,
    'must be a domain such as example.com (no @, no wildcard)',
  );
const rate = z
  .string()
  .max(40)
  .refine((text) => readRate(text) !== undefined, { error: `must be ${RATE_FORMS}` });
const projectIds = z
  .array(z.number().int().positive().max(Number.MAX_SAFE_INTEGER))
  .min(1, 'must name at least one project (to refuse everything, use "deny": true)')
  .max(10_000)
  .optional();

/** The policy's schema for one sign-in: the generic keys, and its older aliases. */
function schemaFor(signIn: PolicySignIn | undefined) {
  const { accountAlias, projectsAlias } = keysOf(signIn);
  const accountWhat = signIn ? `the ${signIn.title} account id` : 'an account id';
  const accountId = z.union(
    [z.number().int().positive().max(Number.MAX_SAFE_INTEGER), z.string().regex(ACCOUNT_ID)],
    { error: `must be ${accountWhat} (as hosted_whoami shows it, e.g. 999)` },
  );
  const account = oneOrMany(accountId, accountWhat).optional();
  const match = z
    .strictObject({
      email: oneOrMany(email, 'an email address').optional(),
      domain: oneOrMany(domain, 'a domain such as example.com').optional(),
      account,
      ...(accountAlias ? { [accountAlias]: account } : {}),
    })
    .refine((value) => Object.keys(value).length > 0, {
      error: 'must name at least one of email, domain, account (use "default" for everyone else)',
    })
    .superRefine((value, context) => {
      if (accountAlias) oneName(value, 'account', accountAlias, context);
    });

  const settings = {
    /** A label for `policy explain` and the errors of refused calls. */
    name: z.string().min(1).max(100).optional(),
    /** Only the tools of these toolsets (`<provider>`, `<provider>.<toolset>`). */
    toolsets: z
      .array(
        z
          .string()
          .max(100)
          .regex(
            TOOLSET_NAME,
            'must be a provider id or <provider>.<toolset>, as in the connector URLs (/mcp/x/<toolsets>)',
          ),
      )
      .min(1, 'must name at least one toolset (to refuse everything, use "deny": true)')
      .max(200)
      .optional(),
    /** Only the tools whose annotations say `readOnlyHint: true`. */
    readOnly: z.boolean().optional(),
    /** Only these projects (ids) of the sign-in provider. */
    projects: projectIds,
    ...(projectsAlias ? { [projectsAlias]: projectIds } : {}),
    /** Tool calls per user (`MCP_RATE_LIMIT` when absent; `off`: none). */
    rateLimit: z
      .string()
      .max(40)
      .refine((text) => text === 'off' || readRate(text) !== undefined, {
        error: `must be ${RATE_FORMS}, or off`,
      })
      .optional(),
    /** Calls per user of one tool (served names), each on top of `rateLimit`. */
    toolRateLimits: z
      .record(z.string().regex(TOOL_NAME, 'must be a served tool name, e.g. hosted_whoami'), rate)
      .refine((value) => Object.keys(value).length <= 1_000, { error: 'names more than 1000 tools' })
      .optional(),
    /** Refuse the person: no sign-in, no tools. */
    deny: z.boolean().optional(),
  };
  const settingKeys = Object.keys(settings).filter((key) => key !== 'name' && key !== 'deny');

  const checks = (value: Record<string, unknown>, context: z.RefinementCtx) => {
    // `deny: true` refuses outright; a setting beside it would suggest otherwise.
    if (value.deny === true) {
      for (const key of settingKeys) {
        if (value[key] !== undefined) {
          context.addIssue({
            code: 'custom',
            path: [key],
            message: `has no effect beside "deny": true (a denied person gets nothing); remove it`,
          });
        }
      }
    }
    if (projectsAlias) oneName(value, 'projects', projectsAlias, context);
    if (signIn && !signIn.projects) {
      for (const key of ['projects', projectsAlias]) {
        if (key && value[key] !== undefined) {
          context.addIssue({
            code: 'custom',
            path: [key],
            message: `the ${signIn.title} sign-in cannot narrow by project (its connection declares no project setting); remove it`,
          });
        }
      }
    }
  };

  const rule = z.strictObject({ match, ...settings }).superRefine(checks);
  const defaultRule = z.strictObject(settings).superRefine(checks);
  return z.strictObject({
    $schema: z.string().optional(),
    rules: z.array(rule).max(1_000).optional(),
    default: defaultRule.optional(),
  });
}

/** A key and its older alias in one object: an error (which one would win is not obvious). */
function oneName(value: Record<string, unknown>, key: string, alias: string, context: z.RefinementCtx) {
  if (value[key] !== undefined && value[alias] !== undefined) {
    context.addIssue({
      code: 'custom',
      path: [alias],
      message: `"${alias}" is the older name of "${key}": use one of them, not both`,
    });
  }
}

/** A rule (or the default) as the file gives it, aliases included. */
interface RuleInput {
  match?: { email?: string | string[]; domain?: string | string[] } & Record<string, unknown>;
  name?: string | undefined;
  toolsets?: string[] | undefined;
  readOnly?: boolean | undefined;
  rateLimit?: string | undefined;
  toolRateLimits?: Record<string, string> | undefined;
  deny?: boolean | undefined;
  [key: string]: unknown;
}
/** Who a request is from, as the policy matches people. */
export interface PolicyIdentity {
  /** The sign-in identity's email. */
  email: string;
  /** The account the person signed in to; absent: rules that match an account do not apply. */
  accountId?: string | undefined;
}

/** What the policy gives one person: the rule that matched, and its settings. */
export interface PolicyDecision {
  /** The rule's number (1-based, in file order), or `default`. */
  rule: number | 'default';
  name: string | undefined;
  /** Where the rule starts in the file (the default: where `default` is, if written). */
  line: number | undefined;
  /** Who narrows, for refused calls: `the server's policy (rule 2 "contractors")`. */
  source: string;
  deny: boolean;
  toolsets: readonly string[] | undefined;
  readOnly: boolean;
  /** Only these projects of the sign-in provider; undefined: all. */
  projects: readonly number[] | undefined;
  /** The rule's own rate; `off` lifts `MCP_RATE_LIMIT`; undefined: `MCP_RATE_LIMIT` applies. */
  rateLimit: Rate | 'off' | undefined;
  toolRateLimits: Readonly<Record<string, Rate>> | undefined;
}

/** Names the policy may use, to check it against what the server serves. */
export interface PolicyNames {
  /** The valid toolset names (as in `/mcp/x/<toolsets>`). */
  toolsets?: readonly string[];
  /** The served tool names (for `toolRateLimits`). */
  tools?: readonly string[];
  /** The sign-in whose people the policy matches; absent: only the generic keys, any account id. */
  signIn?: PolicySignIn;
}

interface CompiledRule {
  decision: PolicyDecision;
  emails: ReadonlySet<string> | undefined;
  domains: ReadonlySet<string> | undefined;
  accounts: ReadonlySet<string> | undefined;
}

/** Problems listed in one error at most (a hostile file can have thousands). */
const MAX_PROBLEMS = 20;

const lower = (value: string | readonly string[] | undefined) =>
  value === undefined
    ? undefined
    : new Set((typeof value === 'string' ? [value] : value).map((item) => item.trim().toLowerCase()));

type AccountIds = number | string | readonly (number | string)[] | undefined;

const asStrings = (value: AccountIds) =>
  value === undefined
    ? undefined
    : new Set((Array.isArray(value) ? value : [value]).map((item) => String(item)));

/** A path as a reader finds it in the file: `rules[1].match.email`. */
function describePath(path: JsonPath): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out ? `.${part}` : part;
  return out || '(the whole file)';
}

/** A valid policy file, compiled for matching. */
export class Policy {
  readonly file: string;
  /** SHA-256 of the file's bytes (first 12 hex digits): compare it across replicas. */
  readonly digest: string;
  readonly ruleCount: number;
  readonly #rules: readonly CompiledRule[];
  readonly #default: PolicyDecision;

  private constructor(file: string, digest: string, rules: CompiledRule[], fallback: PolicyDecision) {
    this.file = file;
    this.digest = digest;
    this.#rules = rules;
    this.#default = fallback;
    this.ruleCount = rules.length;
  }

  /**
   * Reads a policy from the text of `file`. Every problem (JSON syntax, a wrong type, an unknown
   * key, a toolset the server does not serve) is a `ConfigError` whose lines read
   * `<file>:<line>:<column>: <where>: <what>`.
   */
  static parse(text: string, file: string, names: PolicyNames = {}): Policy {
    let located: LocatedJson;
    try {
      located = parseLocatedJson(text);
    } catch (error) {
      if (!(error instanceof JsonSyntaxError)) throw error;
      throw new ConfigError(
        `The policy ${file} is not valid JSON:\n  ${file}:${error.position.line}:${error.position.column}: ${error.reason}`,
      );
    }
    const problems: string[] = [];
    const report = (position: Position | undefined, path: JsonPath, message: string) => {
      const where = position ? `${file}:${position.line}:${position.column}` : file;
      problems.push(`${where}: ${describePath(path)}: ${message}`);
    };
    // zod passes over a `__proto__` key in silence: every one is refused here, wherever it is.
    for (const path of protoKeys(located.value, [])) report(located.keyAt(path), path, 'unknown key');
    const parsed = schemaFor(names.signIn).safeParse(located.value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const path = issue.path.filter((part): part is string | number => typeof part !== 'symbol');
        if (issue.code === 'unrecognized_keys') {
          for (const key of issue.keys.filter((key) => key !== '__proto__')) {
            report(located.keyAt([...path, key]), [...path, key], 'unknown key');
          }
          continue;
        }
        report(nearest(located, path), path, issue.message);
      }
    }
    if (!parsed.success || problems.length > 0) throw policyError(file, problems);
    const data = parsed.data as { rules?: RuleInput[]; default?: RuleInput };
    const { accountAlias, projectsAlias } = keysOf(names.signIn);
    const known = {
      toolsets: names.toolsets ? new Set(names.toolsets) : undefined,
      tools: names.tools ? new Set(names.tools) : undefined,
    };
    const checkNames = (input: RuleInput, base: JsonPath) => {
      input.toolsets?.forEach((toolset, index) => {
        if (known.toolsets && !known.toolsets.has(toolset)) {
          const path = [...base, 'toolsets', index];
          report(
            located.valueAt(path),
            path,
            `unknown toolset "${toolset}" (this server serves: ${[...known.toolsets].sort().join(', ')})`,
          );
        }
      });
      for (const tool of Object.keys(input.toolRateLimits ?? {})) {
        if (known.tools && !known.tools.has(tool)) {
          const path = [...base, 'toolRateLimits', tool];
          report(located.keyAt(path), path, `"${tool}" is not a tool this server serves`);
        }
      }
    };
    const rules = (data.rules ?? []).map((input, index) => {
      checkNames(input, ['rules', index]);
      return {
        decision: decisionOf(input, projectsAlias, index + 1, located.valueAt(['rules', index])?.line),
        emails: lower(input.match?.email),
        domains: lower(input.match?.domain),
        accounts: asStrings(
          (input.match?.account ?? (accountAlias ? input.match?.[accountAlias] : undefined)) as AccountIds,
        ),
      };
    });
    checkNames(data.default ?? {}, ['default']);
    if (problems.length > 0) throw policyError(file, problems);
    const digest = createHash('sha256').update(text).digest('hex').slice(0, 12);
    return new Policy(
      file,
      digest,
      rules,
      decisionOf(data.default ?? {}, projectsAlias, 'default', located.valueAt(['default'])?.line),
    );
  }

  /** The rule that applies to a person: the first whose match fits, else the default. */
  decide(identity: PolicyIdentity): PolicyDecision {
    return this.explain(identity).decision;
  }

  /**
   * The decision, and the rules passed over because they match an account and the identity has
   * none (for `policy explain` without `--account`).
   */
  explain(identity: PolicyIdentity): { decision: PolicyDecision; needAccount: number[] } {
    const address = identity.email.trim().toLowerCase();
    const at = address.lastIndexOf('@');
    const domainOf = at >= 0 ? address.slice(at + 1) : '';
    const needAccount: number[] = [];
    for (const compiled of this.#rules) {
      if (compiled.emails && !compiled.emails.has(address)) continue;
      if (compiled.domains && !compiled.domains.has(domainOf)) continue;
      if (compiled.accounts) {
        if (identity.accountId === undefined) {
          needAccount.push(compiled.decision.rule as number);
          continue;
        }
        if (!compiled.accounts.has(identity.accountId)) continue;
      }
      return { decision: compiled.decision, needAccount };
    }
    return { decision: this.#default, needAccount };
  }
}

/** The paths of every `__proto__` key in a parsed value. */
function protoKeys(value: unknown, path: (string | number)[]): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [];
  const found: (string | number)[][] = [];
  for (const [key, item] of Object.entries(value)) {
    const at = [...path, Array.isArray(value) ? Number(key) : key];
    if (key === '__proto__' && !Array.isArray(value)) found.push(at);
    found.push(...protoKeys(item, at));
  }
  return found;
}

/** Where to point for a problem at `path`: the value, else the closest enclosing one written. */
function nearest(located: LocatedJson, path: JsonPath): Position | undefined {
  for (let length = path.length; length >= 0; length--) {
    const prefix = path.slice(0, length);
    const position = located.valueAt(prefix) ?? (length > 0 ? located.keyAt(prefix) : undefined);
    if (position) return position;
  }
  return undefined;
}

function policyError(file: string, problems: string[]): ConfigError {
  const shown = problems.slice(0, MAX_PROBLEMS);
  const more = problems.length > shown.length ? `\n  (and ${problems.length - shown.length} more)` : '';
  return new ConfigError(`Invalid policy ${file}:\n${shown.map((line) => `  ${line}`).join('\n')}${more}`);
}

function decisionOf(
  input: RuleInput,
  projectsAlias: string | undefined,
  rule: number | 'default',
  line: number | undefined,
): PolicyDecision {
  const label = rule === 'default' ? 'default rule' : `rule ${rule}`;
  const name = input.name;
  const toolRates = input.toolRateLimits
    ? Object.fromEntries(Object.entries(input.toolRateLimits).map(([tool, text]) => [tool, readRate(text)]))
    : undefined;
  return {
    rule,
    name,
    line,
    source: `the server's policy (${label}${name ? ` "${name}"` : ''})`,
    deny: input.deny === true,
    toolsets: input.toolsets,
    readOnly: input.readOnly === true,
    projects: (input.projects ?? (projectsAlias ? input[projectsAlias] : undefined)) as number[] | undefined,
    rateLimit:
      input.rateLimit === undefined
        ? undefined
        : input.rateLimit === 'off'
          ? 'off'
          : readRate(input.rateLimit),
    toolRateLimits: toolRates as Record<string, Rate> | undefined,
  };
}
