import { InputUnavailableError, InvalidInputError } from './errors.js';

/**
 * A handler's own questions (`ToolContext.ask`): what it may ask the client, and the answers.
 * How a question travels depends on the client: a 2025-11-25 connection gets a real
 * `elicitation/create` (or `sampling/createMessage`, `roots/list`) request and the handler runs
 * again with the answer; a 2026-07-28 request gets an `input_required` result, answered on the
 * retry (the answers of earlier rounds ride in a signed `requestState`); a call running as a task
 * parks the task in `input_required` until `tasks/update` brings the answers.
 */

/** A form for the person: a flat object schema of primitive fields (never for secrets). */
export interface FormQuestion {
  method: 'elicitation/create';
  params: {
    mode?: 'form';
    message: string;
    requestedSchema: {
      type: 'object';
      properties: Record<string, Record<string, unknown>>;
      required?: string[];
    };
  };
}

/** A completion from the client's model (`sampling/createMessage`; deprecated in 2026-07-28 but served). */
export interface SamplingQuestion {
  method: 'sampling/createMessage';
  params: {
    messages: { role: 'user' | 'assistant'; content: { type: 'text'; text: string } }[];
    maxTokens: number;
    systemPrompt?: string;
  };
}

/** The client's roots (`roots/list`; deprecated in 2026-07-28 but served). */
export interface RootsQuestion {
  method: 'roots/list';
  params: Record<string, never>;
}

export type Question = FormQuestion | SamplingQuestion | RootsQuestion;

/** Questions by key: `^[A-Za-z0-9_.-]{1,64}$`, unique within the call. */
export type Questions = Record<string, Question>;

export interface FormAnswer {
  action: 'accept' | 'decline' | 'cancel';
  /** On accept: the fields the person filled in. */
  content?: Record<string, string | number | boolean | string[]>;
}

export interface SamplingAnswer {
  role: 'user' | 'assistant';
  content: { type: string; text?: string; [key: string]: unknown };
  model: string;
  stopReason?: string;
}

export interface RootsAnswer {
  roots: { uri: string; name?: string }[];
}

export type AnswerTo<Q extends Question> = Q extends FormQuestion
  ? FormAnswer
  : Q extends SamplingQuestion
    ? SamplingAnswer
    : RootsAnswer;

export type Answers<Q extends Questions> = { [K in keyof Q]: AnswerTo<Q[K]> };

/** A form question: `message` and the fields to fill in. */
export function formQuestion(
  message: string,
  properties: Record<string, Record<string, unknown>>,
  required: readonly string[] = [],
): FormQuestion {
  return {
    method: 'elicitation/create',
    params: {
      mode: 'form',
      message,
      requestedSchema: {
        type: 'object',
        properties,
        ...(required.length > 0 ? { required: [...required] } : {}),
      },
    },
  };
}

/** A question for the client's model: one user message. */
export function samplingQuestion(text: string, maxTokens = 200): SamplingQuestion {
  return {
    method: 'sampling/createMessage',
    params: { messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens },
  };
}

/** The client's roots. */
export function rootsQuestion(): RootsQuestion {
  return { method: 'roots/list', params: {} };
}

const KEY = /^[A-Za-z0-9_.-]{1,64}$/;

// ---- internal: how a call's questions reach the client ----------------------------------------

/** What a call can ask through, for the serving layer to build (absent: it cannot ask at all). */
export interface InputChannel {
  /** Whether the client declared this kind of request. */
  can(method: Question['method']): boolean;
  /** The answer known for `key` in this call (this round's, or carried from earlier ones). */
  known(key: string): unknown;
  /**
   * A call running as a task: parks the task until every question is answered (`tasks/update`),
   * resolving with the answers. Absent: the call stops with `input_required` and runs again.
   */
  wait?(questions: Questions, signal: AbortSignal): Promise<Record<string, unknown>>;
  /**
   * Set when the round carried a verified `requestState`: the call it was issued for (see
   * `callDigest`); answers carried for another call are refused.
   */
  readonly boundTo?: string;
}

/** Thrown by `ask` when the call must stop and ask; caught by the execute path. */
export class InputRequired {
  constructor(readonly questions: Questions) {}
}

/** Checks questions before they are sent: keys, and that the client can answer each kind. */
export function checkQuestions(questions: Questions, channel: InputChannel | undefined): void {
  const keys = Object.keys(questions);
  if (keys.length === 0) throw new TypeError('ask: give at least one question.');
  for (const key of keys) {
    if (!KEY.test(key)) throw new TypeError(`ask: question key must match ${KEY}: ${key.slice(0, 80)}`);
    const method = questions[key]?.method;
    if (!channel || (method && !channel.can(method))) {
      throw new InputUnavailableError(
        channel
          ? `The client cannot answer this question (${method} was not declared): ask in the tool's arguments instead, or do without.`
          : 'The client cannot answer questions on this call (no elicitation over this connection).',
      );
    }
  }
}

/** Checks an answer's shape against its question; a malformed one is the client's bad input. */
export function checkAnswer(key: string, question: Question, answer: unknown): unknown {
  const object = typeof answer === 'object' && answer !== null && !Array.isArray(answer);
  const value = answer as Record<string, unknown>;
  let ok = false;
  if (object && question.method === 'elicitation/create') {
    ok =
      (value.action === 'accept' || value.action === 'decline' || value.action === 'cancel') &&
      (value.content === undefined || (typeof value.content === 'object' && value.content !== null));
  } else if (object && question.method === 'sampling/createMessage') {
    ok = typeof value.content === 'object' && value.content !== null;
  } else if (object && question.method === 'roots/list') {
    ok = Array.isArray(value.roots);
  }
  if (!ok) {
    throw new InvalidInputError(
      `The answer to input request ${key} is not a result of ${question.method}: answer it with one.`,
    );
  }
  return answer;
}

/**
 * `call_` and 16 hex digits of SHA-256 over the tool's name and its validated input (keys in the
 * schema's order): the call a `requestState` or a confirmation was issued for.
 */
export async function callDigest(prefix: string, toolName: string, input: unknown): Promise<string> {
  const bytes = new TextEncoder().encode(JSON.stringify([toolName, input]));
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes));
  let hex = '';
  for (const byte of digest.subarray(0, 8)) hex += byte.toString(16).padStart(2, '0');
  return `${prefix}${hex}`;
}

// ---- requestState: the answers of earlier rounds, signed ---------------------------------------

/** What a `requestState` carries (signed, not encrypted: the client sees its own answers). */
export interface RoundState {
  /** The call it belongs to (`callDigest`). */
  call: string;
  /** Who asked (`taskOwner`): state is never accepted for someone else. */
  owner: string;
  /** Unix ms after which it is refused. */
  exp: number;
  /** Answers given so far in this call, by key. */
  answers: Record<string, unknown>;
}

const STATE_TTL_MS = 10 * 60 * 1000;
type HmacKey = ReturnType<typeof globalThis.crypto.subtle.importKey>;
let processKey: HmacKey | undefined;

/** Signs and checks `requestState` with HMAC-SHA256 under one key. */
export class RoundStateCodec {
  readonly #key: HmacKey;

  /**
   * `secret`: at least 32 characters, the same on every replica that may receive a retry.
   * Without one, a key random to this process (one replica, stdio).
   */
  constructor(secret?: string) {
    if (secret !== undefined && secret.length < 32) {
      throw new TypeError('The requestState key must be at least 32 characters.');
    }
    if (secret === undefined) {
      processKey ??= importKey(globalThis.crypto.getRandomValues(new Uint8Array(32)));
      this.#key = processKey;
    } else {
      this.#key = importKey(new TextEncoder().encode(secret));
    }
  }

  async mint(state: Omit<RoundState, 'exp'>, now = Date.now()): Promise<string> {
    const body = base64url(new TextEncoder().encode(JSON.stringify({ ...state, exp: now + STATE_TTL_MS })));
    const mac = await globalThis.crypto.subtle.sign('HMAC', await this.#key, new TextEncoder().encode(body));
    return `s1.${body}.${base64url(new Uint8Array(mac))}`;
  }

  /** The state, or an error naming why not (never its content). */
  async verify(wire: unknown, owner: string, now = Date.now()): Promise<RoundState> {
    if (typeof wire !== 'string' || wire.length > 65_536) throw new Error('malformed');
    const [version, body, mac, ...rest] = wire.split('.');
    if (version !== 's1' || !body || !mac || rest.length > 0) throw new Error('malformed');
    const signature = fromBase64url(mac);
    if (!signature) throw new Error('malformed');
    const valid = await globalThis.crypto.subtle.verify(
      'HMAC',
      await this.#key,
      signature,
      new TextEncoder().encode(body),
    );
    if (!valid) throw new Error('mac');
    const bytes = fromBase64url(body);
    const state = bytes && (JSON.parse(new TextDecoder().decode(bytes)) as RoundState);
    if (!state || typeof state.answers !== 'object' || state.answers === null) throw new Error('malformed');
    if (!(state.exp > now)) throw new Error('expired');
    if (state.owner !== owner) throw new Error('owner');
    return state;
  }
}

function importKey(raw: Uint8Array): HmacKey {
  return globalThis.crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
    'verify',
  ]);
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
