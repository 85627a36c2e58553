import { createHmac } from 'node:crypto';

/** What free text becomes in a record: its length and a keyed hash (equal texts, equal hashes). */
export interface RedactedText {
  text_length: number;
  text_hmac: string;
}

/** Field names that hold ids: `id`, `ids`, `*_id`, `*_ids`, `*Id`, `*Ids`. */
const ID_KEY = /^(?:ids?|.*_ids?|.*[a-z0-9]Ids?)$/;
/** An id under an id field: short, no spaces or punctuation beyond `._:-`. */
const ID_VALUE = /^[A-Za-z0-9._:-]{1,32}$/;
/** A number written as a string (upstream ids often are). */
const DIGITS = /^\d{1,20}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/**
 * A key kept as it is: a field name as tool schemas write them. Any other key (a client may send
 * anything, before the schema refuses it) becomes a hash.
 */
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_]{0,31}$/;

const MAX_DEPTH = 6;
const MAX_ENTRIES = 50;

/**
 * The arguments of a call as an audit record keeps them: keys kept, numbers, booleans and null
 * kept, ids kept (digit strings and UUIDs anywhere; short plain values under an id field), every
 * other string replaced by its length and an HMAC-SHA256 under `key` (so the same text can be
 * recognised across records without being readable, and nobody without the key can test
 * guesses). A key that is not a plain name is hashed too. Deeper than 6 levels or past 50
 * entries, the rest is counted, not kept.
 */
export function redactArguments(value: unknown, key: Uint8Array): unknown {
  return redact(value, key, false, 0);
}

export function redactText(text: string, key: Uint8Array): RedactedText {
  return {
    text_length: text.length,
    text_hmac: createHmac('sha256', key).update(text).digest('base64url').slice(0, 22),
  };
}

function redact(value: unknown, key: Uint8Array, idField: boolean, depth: number): unknown {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string') {
    if (DIGITS.test(value) || UUID.test(value) || (idField && ID_VALUE.test(value))) return value;
    return redactText(value, key);
  }
  if (typeof value !== 'object') return null;
  if (depth >= MAX_DEPTH) return { omitted_depth: true };
  if (Array.isArray(value)) {
    const out = value.slice(0, MAX_ENTRIES).map((item) => redact(item, key, idField, depth + 1));
    if (value.length > MAX_ENTRIES) out.push({ omitted_items: value.length - MAX_ENTRIES });
    return out;
  }
  const out: Record<string, unknown> = {};
  let count = 0;
  let omitted = 0;
  for (const [name, item] of Object.entries(value)) {
    if (count >= MAX_ENTRIES) {
      omitted++;
      continue;
    }
    count++;
    const plain = PLAIN_KEY.test(name);
    const shown = plain ? name : `key_${redactText(name, key).text_hmac}`;
    out[shown] = redact(item, key, plain && ID_KEY.test(name), depth + 1);
  }
  if (omitted > 0) out.omitted_keys = omitted;
  return out;
}
