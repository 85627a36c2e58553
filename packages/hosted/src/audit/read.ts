import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { createInterface } from 'node:readline';
import { ConfigError } from '@x/mcp-core';
import { ChainVerifier, openLine, type RecordPlace, type VerifyReport } from './chain.js';
import type { AuditTarget } from './config.js';
import { fileSinkFiles, readRedisStream } from './sinks.js';

/** Every line of a sink, oldest first, with where it is. */
export async function* auditLines(
  target: AuditTarget,
  options: { prefix?: string } = {},
): AsyncGenerator<{ line: string; place: RecordPlace }> {
  if (target.kind === 'file') {
    const files = fileSinkFiles(target.path);
    if (files.length === 0) throw new ConfigError(`No audit log at ${target.path}.`);
    for (const file of files) {
      let number = 0;
      const lines = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
      for await (const line of lines) {
        number++;
        // A trailing empty line is the end of the last record, not a record.
        if (line === '') continue;
        yield { line, place: { source: basename(file), position: `line ${number}` } };
      }
    }
    return;
  }
  if (target.kind === 'redis') {
    for await (const { id, line } of readRedisStream(target.url, options)) {
      yield { line, place: { source: 'redis', position: `entry ${id}` } };
    }
    return;
  }
  throw new ConfigError(
    target.kind === 'off'
      ? 'The audit log is off (MCP_AUDIT=off); name one with --sink file:<path> or --sink redis.'
      : 'stdout records went to whatever read the server’s output: save them to a file and pass --sink file:<path>.',
  );
}

/** `audit verify`: every record's hash, and the chain from the first record kept to the last. */
export async function verifyAudit(
  target: AuditTarget,
  options: { prefix?: string } = {},
): Promise<VerifyReport> {
  const verifier = new ChainVerifier();
  for await (const { line, place } of auditLines(target, options)) {
    if (!verifier.add(line, place)) break;
  }
  return verifier.report();
}

export interface TailFilter {
  /** A user id or email. */
  user?: string;
  /** Records at or after this time. */
  since?: Date;
  /** What was called (a tool, prompt or resource name). */
  tool?: string;
  /** The last this many matching records. Default 20. */
  limit?: number;
}

/** `audit tail`: the last matching records, oldest first. */
export async function tailAudit(
  target: AuditTarget,
  filter: TailFilter = {},
): Promise<Record<string, unknown>[]> {
  const limit = filter.limit ?? 20;
  const since = filter.since?.getTime();
  const user = filter.user?.toLowerCase();
  const kept: Record<string, unknown>[] = [];
  for await (const { line } of auditLines(target)) {
    const opened = openLine(line);
    if (!opened.ok) continue;
    const record = opened.record;
    if (since !== undefined && !(Date.parse(String(record.time)) >= since)) continue;
    if (filter.tool !== undefined && record.name !== filter.tool) continue;
    if (user !== undefined) {
      const who = record.user as { id?: unknown; email?: unknown } | null;
      if (!who || (String(who.id).toLowerCase() !== user && String(who.email ?? '').toLowerCase() !== user))
        continue;
    }
    kept.push(record);
    if (kept.length > limit) kept.shift();
  }
  return kept;
}

/** `--since`: an ISO time, or a duration back from now (`30s`, `15m`, `2h`, `7d`). */
export function parseSince(text: string, now = Date.now()): Date {
  const duration = /^(\d+)\s*([smhd])$/.exec(text.trim());
  if (duration) {
    const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[duration[2] as 's' | 'm' | 'h' | 'd'];
    return new Date(now - Number(duration[1]) * unit);
  }
  const time = Date.parse(text);
  if (Number.isNaN(time)) {
    throw new ConfigError(
      `--since must be a time (2026-11-28T09:00:00Z) or a duration (15m, 2h, 7d); got ${text}.`,
    );
  }
  return new Date(time);
}
