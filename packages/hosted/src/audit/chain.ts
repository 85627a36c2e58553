import { createHash } from 'node:crypto';

/** The `prev` of a sink's first record. */
export const GENESIS = '0'.repeat(64);

/** Where a chain stands: the last record's sequence number and hash. */
export interface ChainHead {
  seq: number;
  hash: string;
}

export const EMPTY_HEAD: ChainHead = Object.freeze({ seq: 0, hash: GENESIS });

const HASH_SUFFIX = /,"hash":"([0-9a-f]{64})"\}$/;

/**
 * One record as a line (without its newline), chained after `head`: the entry with `seq` (one
 * more than the head's) and `prev` (the head's hash), then `hash`, the SHA-256 (hex) of the line
 * as it reads up to `hash` closed with `}`. The hash covers the exact bytes, so verifying needs
 * no canonical form and no secret.
 */
export function sealLine(entry: object, head: ChainHead): { line: string; head: ChainHead } {
  const seq = head.seq + 1;
  const body = JSON.stringify({ seq, prev: head.hash, ...entry });
  const hash = sha256(body);
  return { line: `${body.slice(0, -1)},"hash":"${hash}"}`, head: { seq, hash } };
}

/** Chains `entries` after `head`: their lines and the new head. */
export function sealLines(entries: readonly object[], head: ChainHead): { lines: string[]; head: ChainHead } {
  const lines: string[] = [];
  let current = head;
  for (const entry of entries) {
    const sealed = sealLine(entry, current);
    lines.push(sealed.line);
    current = sealed.head;
  }
  return { lines, head: current };
}

/** A record as read back, or why it cannot be trusted. */
export type OpenedLine =
  | { ok: true; seq: number; prev: string; hash: string; record: Record<string, unknown> }
  | { ok: false; reason: string };

/** Parses one line and checks its own hash (not yet its place in the chain). */
export function openLine(line: string): OpenedLine {
  const match = HASH_SUFFIX.exec(line);
  if (!match) return { ok: false, reason: 'not a sealed record (no hash at its end)' };
  const body = `${line.slice(0, match.index)}}`;
  const hash = match[1] as string;
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  if (sha256(body) !== hash) return { ok: false, reason: 'its content does not match its hash (edited)' };
  const { seq, prev } = record;
  if (!Number.isSafeInteger(seq) || typeof prev !== 'string' || !/^[0-9a-f]{64}$/.test(prev)) {
    return { ok: false, reason: 'no seq or prev' };
  }
  return { ok: true, seq: seq as number, prev, hash, record: { ...record, hash } };
}

/** Where a record came from, for the report of `audit verify`. */
export interface RecordPlace {
  /** A file name, or `redis`. */
  source: string;
  /** The line number in the file, or the stream entry id. */
  position: string;
}

export interface VerifyReport {
  ok: boolean;
  records: number;
  /** The first record's sequence number (above 1 when older records were rotated away or trimmed). */
  firstSeq?: number;
  last?: ChainHead;
  /** The first record that breaks the chain, and why. */
  bad?: RecordPlace & { seq?: number; reason: string };
}

/**
 * Checks a sink's records in order: each one's own hash, its `prev` (the record before it) and
 * its `seq` (one more). The first record may follow records that are gone (rotated away,
 * trimmed); everything after it must chain. Stops at the first bad record.
 */
export class ChainVerifier {
  #records = 0;
  #first: number | undefined;
  #head: ChainHead | undefined;
  #bad: VerifyReport['bad'];

  /** False once a record failed (later ones are not checked). */
  add(line: string, place: RecordPlace): boolean {
    if (this.#bad) return false;
    const opened = openLine(line);
    if (!opened.ok) {
      this.#bad = { ...place, reason: opened.reason };
      return false;
    }
    const head = this.#head;
    if (head) {
      if (opened.prev !== head.hash) {
        this.#bad = {
          ...place,
          seq: opened.seq,
          reason:
            opened.seq === head.seq + 1
              ? 'its prev is not the hash of the record before it (a record before it was edited or replaced)'
              : opened.seq > head.seq + 1
                ? `records ${head.seq + 1}..${opened.seq - 1} are missing (deleted)`
                : `it does not follow record ${head.seq} (inserted or reordered)`,
        };
        return false;
      }
      if (opened.seq !== head.seq + 1) {
        this.#bad = { ...place, seq: opened.seq, reason: `its seq is not ${head.seq + 1}` };
        return false;
      }
    } else if (opened.seq === 1 && opened.prev !== GENESIS) {
      this.#bad = { ...place, seq: 1, reason: 'the first record does not start the chain' };
      return false;
    }
    this.#first ??= opened.seq;
    this.#records++;
    this.#head = { seq: opened.seq, hash: opened.hash };
    return true;
  }

  report(): VerifyReport {
    return {
      ok: this.#bad === undefined,
      records: this.#records,
      ...(this.#first === undefined ? {} : { firstSeq: this.#first }),
      ...(this.#head ? { last: this.#head } : {}),
      ...(this.#bad ? { bad: this.#bad } : {}),
    };
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
