/** The backend's error bodies and its DTO validation (NestJS ValidationPipe), shared by the routes. */

export type Json = Record<string, unknown>;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(`HTTP ${status}`);
  }
}

export const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** NestJS's error body: `{ statusCode, message, error }`. */
export function nestError(status: number, message: string | string[]): HttpError {
  return new HttpError(status, { statusCode: status, message, error: REASONS[status] ?? 'Error' });
}

export type Rule =
  | 'string'
  | 'string?'
  | 'strings?'
  | 'object?'
  | 'qaItems'
  | 'qaItems?'
  | 'filesChanged'
  | 'divergences?';

/** The backend's ValidationPipe: whitelist with forbidNonWhitelisted, then each DTO rule. */
export function validate(body: unknown, rules: Record<string, Rule>): Json {
  const record = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Json;
  const problems: string[] = [];
  for (const key of Object.keys(record)) {
    if (!(key in rules)) problems.push(`property ${key} should not exist`);
  }
  for (const [key, rule] of Object.entries(rules)) {
    const value = record[key];
    const optional = rule.endsWith('?');
    if (value === undefined) {
      if (!optional) problems.push(`${key} should not be empty`, `${key} must be a string`);
      continue;
    }
    const base = rule.replace('?', '');
    if (base === 'string' && typeof value !== 'string') problems.push(`${key} must be a string`);
    if (base === 'string' && !optional && typeof value === 'string' && value.trim() === '') {
      problems.push(`${key} should not be empty`);
    }
    if (base === 'strings' && !(Array.isArray(value) && value.every((item) => typeof item === 'string'))) {
      problems.push(`each value in ${key} must be a string`);
    }
    if (base === 'object' && (typeof value !== 'object' || value === null || Array.isArray(value))) {
      problems.push(`${key} must be an object`);
    }
    if (base === 'qaItems' || base === 'filesChanged' || base === 'divergences') {
      if (!Array.isArray(value)) {
        problems.push(`${key} must be an array`);
        continue;
      }
      const fields =
        base === 'qaItems'
          ? { question: 'string', answer: 'string' }
          : base === 'filesChanged'
            ? { path: 'string', additions: 'integer', deletions: 'integer' }
            : { area: 'string', intended: 'string', actual: 'string', justification: 'string' };
      value.forEach((item, index) => {
        const entry = (typeof item === 'object' && item !== null ? item : {}) as Json;
        for (const extra of Object.keys(entry)) {
          if (!(extra in fields)) problems.push(`${key}.${index}.property ${extra} should not exist`);
        }
        for (const [field, type] of Object.entries(fields)) {
          const fieldValue = entry[field];
          if (type === 'string' && typeof fieldValue !== 'string')
            problems.push(`${key}.${index}.${field} must be a string`);
          if (type === 'integer' && !(Number.isInteger(fieldValue) && (fieldValue as number) >= 0)) {
            problems.push(`${key}.${index}.${field} must not be less than 0`);
          }
        }
      });
    }
  }
  if (problems.length > 0) throw nestError(400, problems);
  return record;
}

export function lengthProblems(body: Json, limits: Record<string, number>): string[] {
  return Object.entries(limits)
    .filter(([key, max]) => typeof body[key] === 'string' && (body[key] as string).length > max)
    .map(([key, max]) => `${key} must be shorter than or equal to ${max} characters`);
}
