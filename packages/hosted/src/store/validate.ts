import { InvalidInputError } from '@x/mcp-core';
import type { KvSetOptions } from './kv.js';

/** Argument checks shared by the drivers, so each rejects bad input the same way. */
export function checkKey(key: unknown): asserts key is string {
  if (typeof key !== 'string' || key.length === 0 || key.length > 1024) {
    throw new InvalidInputError('A store key must be a non-empty string of at most 1024 characters.');
  }
}

export function checkTtl(ttlMs: unknown, what = 'ttlMs'): asserts ttlMs is number {
  if (!Number.isSafeInteger(ttlMs) || (ttlMs as number) <= 0) {
    throw new InvalidInputError(`${what} must be a positive integer of milliseconds, got ${String(ttlMs)}.`);
  }
}

export function checkSet(key: unknown, value: unknown, options: KvSetOptions | undefined): void {
  checkKey(key);
  if (typeof value !== 'string') throw new InvalidInputError('A store value must be a string.');
  if (options?.ttlMs !== undefined) checkTtl(options.ttlMs);
  const version = options?.ifVersion;
  if (version !== undefined && (!Number.isSafeInteger(version) || version < 0)) {
    throw new InvalidInputError(`ifVersion must be a non-negative integer, got ${String(version)}.`);
  }
}

export function checkMembers(members: unknown): asserts members is readonly string[] {
  if (!Array.isArray(members) || members.some((member) => typeof member !== 'string')) {
    throw new InvalidInputError('Set members must be an array of strings.');
  }
}
