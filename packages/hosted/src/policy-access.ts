import type { AuthInfo } from '@modelcontextprotocol/server';
import { McpToolError, type ToolAccess } from '@x/mcp-core';
import type { HttpAuth } from '@x/mcp-core/node';
import { StoreUnavailableError } from './errors.js';
import type { PolicyDecision, PolicyIdentity } from './policy.js';
import type { PolicyFile } from './policy-file.js';
import { type CallLimits, type Rate, type TokenBuckets, UserRateLimits } from './rate-limit.js';

export interface GovernanceOptions {
  /** The operator's policy (`MCP_POLICY`); absent: everyone gets every served tool. */
  policy?: PolicyFile;
  /** `MCP_RATE_LIMIT`: tool calls per user unless the user's rule sets its own. */
  rateLimit?: Rate;
  /** Where the rate limits' buckets are kept (`tokenBucketsFor(store)`). */
  buckets: TokenBuckets;
  /** Who a user is (their sign-in identity's email and account); undefined when not signed in. */
  identity(userId: string): Promise<PolicyIdentity | undefined>;
}

/** A request's verified caller: an `AuthInfo`, or the part of it a tool call sees. */
export type Caller = Pick<AuthInfo, 'extra'>;

/** What governs one signed-in user for one request. */
export interface Governed {
  userId: string;
  /** The rule that applies (absent without a policy). */
  decision: PolicyDecision | undefined;
  /** The narrowings the request is served under (with the rate limit's `admit`). */
  accesses: readonly ToolAccess[];
  /** The projects of the sign-in provider the user may reach; undefined: all. */
  projects: readonly number[] | undefined;
}

/**
 * The policy and the per-user rate limits, applied on every request: the rule is looked up
 * again for each request (a changed policy file counts from the next request on, no new
 * sign-in), from the user's stored identity (never from the token).
 */
export class Governance {
  readonly #options: GovernanceOptions;
  readonly #limits: UserRateLimits;
  /** One lookup per request (its AuthInfo is new for every request). */
  readonly #resolved = new WeakMap<Caller, Promise<Governed>>();

  constructor(options: GovernanceOptions) {
    this.#options = options;
    this.#limits = new UserRateLimits(options.buckets);
  }

  /** Whether the rate limits are shared by every replica (Redis) or kept in this process. */
  get sharedLimits(): boolean {
    return this.#limits.shared;
  }

  /** What governs this request's user (`extra.userId` of its verified token). */
  for(info: Caller): Promise<Governed> {
    let governed = this.#resolved.get(info);
    if (!governed) {
      governed = this.#resolve(String(info.extra?.userId));
      this.#resolved.set(info, governed);
      // A failed lookup (store down) is not kept: the request fails, the next one asks again.
      governed.catch(() => this.#resolved.delete(info));
    }
    return governed;
  }

  /**
   * The answer to a request of a person the policy refuses (`deny: true`): 403 with a body
   * that says so. Undefined for everyone else.
   */
  async refusal(info: AuthInfo): Promise<Response | undefined> {
    const { decision } = await this.for(info);
    if (!decision?.deny) return undefined;
    return denied(decision);
  }

  /**
   * Why a person may not sign in (a sentence for the sign-in page), or undefined when they may:
   * the policy denies them for that account.
   */
  signInRefusal(identity: PolicyIdentity): string | undefined {
    const decision = this.#options.policy?.current.decide(identity);
    return decision?.deny ? refusalMessage(decision) : undefined;
  }

  async #resolve(userId: string): Promise<Governed> {
    const policy = this.#options.policy?.current;
    const identity = policy ? await this.#options.identity(userId) : undefined;
    // A user with no identity on record cannot be matched: the default rule applies (the
    // request check has already refused one whose sign-in ended).
    const decision = policy ? policy.decide(identity ?? { email: '' }) : undefined;
    const accesses: ToolAccess[] = [];
    const limits = this.#callLimits(decision);
    const narrowed =
      decision && (decision.toolsets !== undefined || decision.readOnly || limits !== undefined);
    if (decision && narrowed) {
      accesses.push({
        source: decision.source,
        ...(decision.toolsets ? { toolsets: decision.toolsets } : {}),
        ...(decision.readOnly ? { readOnly: true } : {}),
        ...(limits ? { admit: ({ tool }) => this.#limits.admit(userId, tool, limits) } : {}),
      });
    } else if (!decision && limits) {
      accesses.push({
        source: limits.source,
        admit: ({ tool }) => this.#limits.admit(userId, tool, limits),
      });
    }
    return { userId, decision, accesses, projects: decision?.projects };
  }

  /** The rule's rate (`off` lifts it), else `MCP_RATE_LIMIT`; and the rule's per-tool rates. */
  #callLimits(decision: PolicyDecision | undefined): CallLimits | undefined {
    const fromRule = decision?.rateLimit;
    const user = fromRule === 'off' ? undefined : (fromRule ?? this.#options.rateLimit);
    const tools = decision?.toolRateLimits;
    if (!user && !tools) return undefined;
    const ruleSource = decision?.source ?? '';
    return {
      ...(user ? { user } : {}),
      ...(tools ? { tools, toolsSource: ruleSource } : {}),
      source: fromRule === undefined ? 'the server (MCP_RATE_LIMIT)' : ruleSource,
    };
  }
}

function refusalMessage(decision: PolicyDecision): string {
  return `${capitalise(decision.source)} does not admit you to this server. Ask its operator for access.`;
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** 403, not 401: signing in again would not help, and a client must not loop through sign-in. */
function denied(decision: PolicyDecision): Response {
  return new Response(
    JSON.stringify({ error: 'access_denied', error_description: refusalMessage(decision) }),
    {
      status: 403,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    },
  );
}

/**
 * `auth` under the governance: a person the policy denies gets 403 at authentication, every
 * request is served under the policy's narrowing and the rate limits (next to `auth`'s own
 * narrowings), and a store that cannot say who the person is answers 503, never a guess.
 */
export function governedAuth(
  auth: HttpAuth,
  governance: Governance,
  /** Told of every request refused because the policy denies its caller (the audit log records it). */
  onDenied?: (info: AuthInfo) => void,
): HttpAuth {
  return {
    ...auth,
    async authenticate(request) {
      const result = await auth.authenticate(request);
      if (result instanceof Response) return result;
      try {
        const refused = await governance.refusal(result);
        if (!refused) return result;
        onDenied?.(result);
        return refused;
      } catch (error) {
        if (!McpToolError.isInstance(error) || !error.retryable) throw error;
        const retryAfter = StoreUnavailableError.isInstance(error) ? error.retryAfterSeconds : 5;
        return new Response(
          JSON.stringify({ error: 'temporarily_unavailable', error_description: 'Retry shortly.' }),
          {
            status: 503,
            headers: { 'content-type': 'application/json', 'retry-after': String(retryAfter) },
          },
        );
      }
    },
    async accessFor(info, request) {
      const own = (await auth.accessFor?.(info, request)) ?? [];
      const { accesses } = await governance.for(info);
      return own.length === 0 ? accesses : accesses.length === 0 ? own : [...own, ...accesses];
    },
  };
}
