import { McpToolError } from './errors.js';
import { type ToolCallResult, toolError } from './result.js';
import { untilAborted } from './upstream/helpers.js';

/**
 * Sign-in from the agent: a tool whose upstream login is missing or dead fails with an error
 * marked by `needsSignIn`; when the client can open a URL for its person (URL-mode elicitation),
 * the serving layer asks it to open the provider's sign-in page instead of answering the error,
 * waits for the sign-in to finish, and runs the call again. The provider supplies the flow
 * (`SignInOptions.start`); this module keeps one flow at a time per provider and the rounds.
 */

/** A sign-in that is running: where the person goes, and when it is over. */
export interface StartedSignIn {
  /** The page the person opens (no secrets in it: clients show it in full). */
  url: string;
  /** Shown with the URL: what the page is for (and, for a device login, the code to enter). */
  message: string;
  /** Settles when the login is saved (resolves) or has failed, been cancelled or timed out (rejects, message for the person). */
  done: Promise<unknown>;
  /** Stops the flow (its listener, its polling); `done` then rejects. */
  cancel(): void;
}

export interface SignInOptions {
  /** Names the provider in input-request keys: lower-case letters and digits. */
  id: string;
  /** Starts the provider's login flow (same flow, same saved file as its login command). */
  start(): Promise<StartedSignIn>;
  /**
   * While a call waits for the person, it reports progress this often (when the client asked
   * for progress), so a client that resets its request timeout on progress keeps waiting. Default 10 s.
   */
  progressEveryMs?: number;
}

export type SignInOutcome = { ok: true } | { ok: false; reason: string };

/** One run of a provider's sign-in. */
export interface SignInFlow {
  /** Random, unique in this process; also the 2025-11-25 `elicitationId`. */
  readonly id: string;
  readonly url: string;
  readonly message: string;
  /** Never rejects. */
  readonly outcome: Promise<SignInOutcome>;
  cancel(): void;
}

/** The sign-ins of this process by what they save (`SignIn.shared`). */
const sharedSignIns = new Map<string, SignIn>();

/** A provider's sign-in: at most one flow at a time, which every call that needs it joins. */
export class SignIn {
  /**
   * One sign-in per `key` in this process (e.g. the login file it writes): every provider
   * instance over that file shares its flow. `options` are used the first time only.
   */
  static shared(key: string, options: SignInOptions): SignIn {
    const at = `${options.id}\n${key}`;
    let signIn = sharedSignIns.get(at);
    if (!signIn) {
      signIn = new SignIn(options);
      sharedSignIns.set(at, signIn);
    }
    return signIn;
  }

  readonly id: string;
  readonly progressEveryMs: number;
  readonly #start: SignInOptions['start'];
  #running: Promise<SignInFlow> | undefined;
  /** The flows still running, and the last one that ended (its outcome answers a late retry). */
  readonly #flows = new Map<string, SignInFlow>();

  constructor(options: SignInOptions) {
    if (!/^[a-z0-9]+$/.test(options.id))
      throw new TypeError(`sign-in id must be lower-case letters and digits: ${options.id}`);
    this.id = options.id;
    this.progressEveryMs = options.progressEveryMs ?? 10_000;
    this.#start = options.start;
  }

  /** The running flow, or a new one when none runs. Rejects when the flow cannot start. */
  flow(): Promise<SignInFlow> {
    this.#running ??= this.#begin().catch((error: unknown) => {
      this.#running = undefined;
      throw error;
    });
    return this.#running;
  }

  /** A flow by id: running, or the last one that ended. */
  find(id: string): SignInFlow | undefined {
    return this.#flows.get(id);
  }

  async #begin(): Promise<SignInFlow> {
    const started = await this.#start();
    const id = randomId();
    const outcome = started.done.then(
      (): SignInOutcome => ({ ok: true }),
      (error: unknown): SignInOutcome => ({
        ok: false,
        reason: error instanceof Error ? error.message : String(error),
      }),
    );
    const flow: SignInFlow = {
      id,
      url: started.url,
      message: started.message,
      outcome,
      cancel: () => started.cancel(),
    };
    // Only one flow runs at a time: the one before has ended, and is forgotten now.
    this.#flows.clear();
    this.#flows.set(id, flow);
    void outcome.then(() => {
      this.#running = undefined;
    });
    return flow;
  }
}

const SIGN_IN: unique symbol = Symbol('@x/mcp-core.signIn');

/**
 * Marks a tool error (a missing or dead login) as one the person can fix by signing in with
 * `signIn`. The error is unchanged for everything else: clients that cannot open a URL get it as is.
 */
export function needsSignIn<E extends McpToolError>(error: E, signIn: SignIn): E {
  Object.defineProperty(error, SIGN_IN, { value: signIn, configurable: true });
  return error;
}

/** What the client answered, in this round of a call, to the input requests it was sent. */
export interface SignInRound {
  answer(key: string): 'accept' | 'decline' | 'cancel' | undefined;
  /** The keys answered in this round. */
  keys(): readonly string[];
  /** 2025-11-25 only: sends `notifications/elicitation/complete` for the flow's `elicitationId`. */
  completed?(elicitationId: string): Promise<void>;
}

/** The URL the serving layer asks the client to open. */
export interface PendingSignIn {
  key: string;
  url: string;
  message: string;
  /** For 2025-11-25's `elicitationId`. */
  flowId: string;
  /** 2025-11-25: the URL elicitation carries `elicitationId` (2026-07-28 has none). */
  legacy: boolean;
}

const PENDING: unique symbol = Symbol('@x/mcp-core.pendingSignIn');

/** The sign-in a result stands for, when the call stopped to send the person to one. */
export function pendingSignIn(result: ToolCallResult): PendingSignIn | undefined {
  return (result as { [PENDING]?: PendingSignIn })[PENDING];
}

const FAILED: unique symbol = Symbol('@x/mcp-core.signInError');

/** Keeps the error a failed call's result came from, when that error can be fixed by signing in. */
export function keepSignInError(result: ToolCallResult, error: unknown): ToolCallResult {
  if (McpToolError.isInstance(error) && (error as { [SIGN_IN]?: SignIn })[SIGN_IN]) {
    Object.defineProperty(result, FAILED, { value: error });
  }
  return result;
}

/**
 * One round of a call whose result may need a sign-in. Not needed, or nothing to ask with: the
 * result as it is. Not asked yet: a result standing for the URL to open (the running flow's, or a
 * new one's). Asked and accepted: waits for the flow (bounded by the flow's own time limit and
 * the caller's signal), then runs the call again with `rerun`. Declined, dismissed, failed or
 * timed out: the error as before, saying what happened; it still names the login command.
 */
export async function signInStep(
  result: ToolCallResult,
  round: SignInRound,
  signal: AbortSignal | undefined,
  rerun: () => Promise<ToolCallResult>,
  reportProgress?: (progress: number, total?: number, message?: string) => Promise<void>,
): Promise<ToolCallResult> {
  const error = (result as { [FAILED]?: McpToolError })[FAILED];
  const signIn = error && (error as { [SIGN_IN]?: SignIn })[SIGN_IN];
  if (!error || !signIn) return result;
  const prefix = `signin_${signIn.id}_`;
  const answered = round.keys().filter((key) => key.startsWith(prefix));
  if (answered.length > 0) {
    // Asked in an earlier round: never a second prompt for the same call.
    const key = answered.find((each) => signIn.find(each.slice(prefix.length))) ?? (answered[0] as string);
    const flow = signIn.find(key.slice(prefix.length));
    const action = round.answer(key);
    if (action !== 'accept') {
      if (flow) {
        flow.cancel();
        // Settles once its listener is closed.
        await flow.outcome;
      }
      return noted(
        error,
        `The person ${action === 'decline' ? 'declined' : 'dismissed'} the sign-in the server offered.`,
      );
    }
    if (!flow) return noted(error, 'The sign-in the person was sent to is no longer running.');
    let beats = 0;
    const heartbeat =
      reportProgress &&
      setInterval(() => {
        void reportProgress(++beats, undefined, 'Waiting for the sign-in in the browser').catch(() => {});
      }, signIn.progressEveryMs);
    const outcome = await untilAborted(flow.outcome, signal)
      .catch((): SignInOutcome => ({ ok: false, reason: 'the call was cancelled while waiting for it.' }))
      .finally(() => clearInterval(heartbeat));
    if (!outcome.ok) return noted(error, `Sign-in from the agent did not complete: ${outcome.reason}`);
    await round.completed?.(flow.id).catch(() => {});
    return rerun();
  }
  let flow: SignInFlow;
  try {
    flow = await signIn.flow();
  } catch (failure) {
    return noted(
      error,
      `Sign-in from the agent could not start: ${failure instanceof Error ? failure.message : String(failure)}`,
    );
  }
  const pending: ToolCallResult = { content: [{ type: 'text', text: flow.message }] };
  Object.defineProperty(pending, PENDING, {
    value: {
      key: `${prefix}${flow.id}`,
      url: flow.url,
      message: flow.message,
      flowId: flow.id,
      legacy: round.completed !== undefined,
    } satisfies PendingSignIn,
  });
  return pending;
}

/** The error as the tool gave it, with what happened to the sign-in added to its message. */
function noted(error: McpToolError, note: string): ToolCallResult {
  return toolError(error.code, `${error.message} (${note})`, error.retryable, { ...error.details });
}

function randomId(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(12));
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
