import { ConfigError } from '../errors.js';
import { RUNNER_ENVIRONMENT } from '../runner-environment.js';

const RUNNER_VARIABLES = new Set(RUNNER_ENVIRONMENT.map((variable) => variable.name));

/**
 * One environment variable of a provider, described once: `--help` (through `runBin`'s
 * `environment`), the README and `server.json` are checked against this.
 */
export interface SettingVariable {
  name: string;
  /** One line for `--help`. */
  description: string;
  /** The value used when it is unset, as text. */
  default?: string;
  /** A credential: never logged, `isSecret` in `server.json`. */
  secret?: boolean;
}

export interface SettingSource<T> {
  /** The value given in code (the provider's settings object); wins over the environment. */
  value: T | undefined;
  /** The environment to read `variable` from. */
  env: Record<string, string | undefined>;
  /** The environment variable, e.g. `BASECAMP_API_URL`. */
  variable: string;
  /** The settings field, named in messages when `value` was given, e.g. `apiUrl`. Default: the variable. */
  setting?: string;
}

const quote = (raw: string) => `"${raw.length > 200 ? `${raw.slice(0, 200)}…` : raw}"`;

/** Which name a message uses: the field when the value came from code, else the variable. */
function origin<T>(source: SettingSource<T>): string {
  return source.value !== undefined ? (source.setting ?? source.variable) : source.variable;
}

/** `value`, else the variable's trimmed text (empty counts as unset), else `fallback`. */
export function loadSetting(source: SettingSource<string> & { fallback: string }): string;
export function loadSetting(source: SettingSource<string> & { fallback?: undefined }): string | undefined;
export function loadSetting(source: SettingSource<string> & { fallback?: string }): string | undefined {
  if (source.value !== undefined) return source.value;
  const raw = source.env[source.variable]?.trim();
  return raw ? raw : source.fallback;
}

/**
 * An http(s) URL from `value`, the variable or `fallback`, without a trailing slash (a path
 * prefix is kept). Anything else, or a URL with a user or password in it, is a `ConfigError`
 * naming the field or variable and, with `example`, what a good value looks like.
 */
export function loadUrlSetting(
  source: SettingSource<string> & { fallback: string; example?: string; allowCredentials?: boolean },
): string {
  const raw = loadSetting(source);
  const name = origin(source);
  const hint = source.example ? ` Set it to ${source.example}.` : '';
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ConfigError(`${name} must be an http(s) URL, got ${quote(raw)}.${hint}`);
  }
  if (!source.allowCredentials && (url.username || url.password)) {
    throw new ConfigError(`${name} must not contain a user name or password.${hint}`);
  }
  return url.href.replace(/\/+$/, '');
}

/**
 * A number from `value`, the variable or `fallback`: greater than 0 (at least 1 when
 * `integer`), at most `max`. Anything else is a `ConfigError` naming the field or variable, the
 * unit and the range.
 */
export function loadNumberSetting(
  source: SettingSource<number> & { fallback: number; max?: number; integer?: boolean; unit?: string },
): number {
  const text = source.value === undefined ? source.env[source.variable]?.trim() : undefined;
  const chosen = source.value ?? (text ? Number(text) : source.fallback);
  const { max, integer = true } = source;
  const ok =
    Number.isFinite(chosen) &&
    (integer ? Number.isInteger(chosen) && chosen >= 1 : chosen > 0) &&
    (max === undefined || chosen <= max);
  if (!ok) {
    const range = integer
      ? max === undefined
        ? 'of at least 1'
        : `from 1 to ${max}`
      : max === undefined
        ? 'greater than 0'
        : `greater than 0 and at most ${max}`;
    throw new ConfigError(
      `${origin(source)} must be a ${integer ? 'whole ' : ''}number${source.unit ? ` of ${source.unit}` : ''} ${range}, got ${quote(String(source.value ?? text ?? ''))}.`,
    );
  }
  return chosen;
}

/** The default and the largest value of a provider's `timeoutMs`. */
export const DEFAULT_TIMEOUT_MS = 30_000;
export const MAX_TIMEOUT_MS = 120_000;

/**
 * A provider's `timeoutMs` setting, the one name every provider uses for the time limit of one
 * HTTP request: whole milliseconds from 1 to 120000, default 30000. `setting` names it in the
 * message when a provider still reads it under an older name.
 */
export function loadTimeoutSetting(
  value: number | undefined,
  { fallback = DEFAULT_TIMEOUT_MS, setting = 'timeoutMs' }: { fallback?: number; setting?: string } = {},
): number {
  return loadNumberSetting({
    value,
    env: {},
    variable: setting,
    fallback,
    max: MAX_TIMEOUT_MS,
    unit: 'milliseconds',
  });
}

/**
 * Where a provider's documents disagree with its variable table: a variable the README does not
 * name, and a `server.json` whose variables (beyond the runner's own, `RUNNER_ENVIRONMENT`, and
 * `ignore`) differ in name, `isSecret` or `default`. Empty when they agree.
 */
export function environmentProblems(
  table: readonly SettingVariable[],
  { readme, serverJson, ignore = [] }: { readme?: string; serverJson?: unknown; ignore?: readonly string[] },
): string[] {
  const problems: string[] = [];
  if (readme !== undefined) {
    for (const variable of table) {
      if (!readme.includes(variable.name)) problems.push(`the README does not mention ${variable.name}`);
    }
  }
  if (serverJson !== undefined) {
    type Entry = { name: string; isSecret?: boolean; default?: string };
    const listed = new Map<string, Entry>();
    const packages = (serverJson as { packages?: { environmentVariables?: Entry[] }[] }).packages ?? [];
    for (const entry of packages.flatMap((pkg) => pkg.environmentVariables ?? [])) {
      if (!ignore.includes(entry.name) && !RUNNER_VARIABLES.has(entry.name)) listed.set(entry.name, entry);
    }
    for (const variable of table) {
      const entry = listed.get(variable.name);
      if (!entry) {
        problems.push(`server.json does not list ${variable.name}`);
        continue;
      }
      if ((entry.isSecret ?? false) !== (variable.secret ?? false)) {
        problems.push(
          `server.json marks ${variable.name} isSecret ${entry.isSecret ?? false}, the table ${variable.secret ?? false}`,
        );
      }
      if (entry.default !== variable.default) {
        problems.push(
          `server.json gives ${variable.name} the default ${entry.default}, the table ${variable.default}`,
        );
      }
      listed.delete(variable.name);
    }
    for (const name of listed.keys())
      problems.push(`server.json lists ${name}, which the table does not have`);
  }
  return problems;
}
