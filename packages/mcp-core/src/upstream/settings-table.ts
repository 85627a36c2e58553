import { z } from 'zod';
import {
  DEFAULT_TIMEOUT_MS,
  loadTimeoutSetting,
  loadUrlSetting,
  MAX_TIMEOUT_MS,
  type SettingVariable,
} from './settings.js';

/** What kind of value a setting takes (`server.json`'s `format` comes from it). */
export type SettingType = 'string' | 'url' | 'path' | 'integer' | 'number' | 'boolean' | 'list';

/**
 * One setting of a provider, declared once in its settings table. From the table come the
 * environment section of `--help` (`environmentOf`), the config-file schema of the composed
 * server (`configSchemaOf`), `server.json`'s environment variables and the README's settings
 * table (`scripts/server-json.mjs --write`); the provider's reader takes the variable and the
 * default from the row (`row.env`, `row.default`).
 */
export interface SettingRow {
  /** The settings field it fills (and its key in a config file), e.g. `apiUrl`; none for a variable only a command reads. */
  setting?: string;
  /** The environment variable, e.g. `BASECAMP_API_URL`; none for a setting only code or a config file gives. */
  env?: string;
  /** The bin's flag for it, e.g. `--toolsets`. */
  flag?: string;
  type: SettingType;
  /** The value used when it is unset, as text. */
  default?: string;
  /** A credential (no `config` then: never in a file a team shares), `isSecret` in `server.json`. */
  secret?: boolean;
  /** One line: `--help`, `server.json` and the README show it. */
  description: string;
  /** Its schema in a config file (non-secret settings only); without one, a config file may not give it. */
  config?: z.ZodType;
}

/** The shape of the config schema of a table: each row with a `setting` and a `config` schema. */
export type ConfigShape<Rows extends readonly SettingRow[]> = {
  [Row in Rows[number] as Row extends { setting: infer Name extends string; config: z.ZodType }
    ? Name
    : never]: Row extends { config: infer Schema extends z.ZodType } ? z.ZodOptional<Schema> : never;
};

/** The environment variables of a table, for `runBin`'s `environment` (`--help`). */
export function environmentOf(rows: readonly SettingRow[]): SettingVariable[] {
  return rows.flatMap((row) =>
    row.env === undefined
      ? []
      : [
          {
            name: row.env,
            description: row.description,
            ...(row.default === undefined ? {} : { default: row.default }),
            ...(row.secret ? { secret: true } : {}),
          },
        ],
  );
}

/**
 * The config-file schema of a table: a strict object of its rows with a `config` schema, each
 * optional and described by the row (a row with a schema but no setting name throws).
 */
export function configSchemaOf<const Rows extends readonly SettingRow[]>(
  rows: Rows,
): z.ZodObject<ConfigShape<Rows>, z.core.$strict> {
  const shape: Record<string, z.ZodType> = {};
  for (const row of rows) {
    if (!row.config) continue;
    if (row.setting === undefined) {
      throw new TypeError(`The variable ${row.env} cannot be in a config file: it names no setting.`);
    }
    shape[row.setting] = row.config.optional().describe(row.description);
  }
  return z.strictObject(shape) as unknown as z.ZodObject<ConfigShape<Rows>, z.core.$strict>;
}

/** A table's rows by setting name (by variable for a row without one), with their literal types. */
export type SettingsIndex<Rows extends readonly SettingRow[]> = {
  [Row in Rows[number] as Row extends { setting: infer Name extends string }
    ? Name
    : Row extends { env: infer Name extends string }
      ? Name
      : never]: Row;
};

/** A table's rows by setting name, so a reader names `SETTINGS.apiUrl.env` rather than a string. */
export function indexSettings<const Rows extends readonly SettingRow[]>(rows: Rows): SettingsIndex<Rows> {
  return Object.fromEntries(rows.map((row) => [row.setting ?? row.env, row])) as SettingsIndex<Rows>;
}

/** The row of `timeoutMs`, the one name every provider gives the time limit of one request. */
export const TIMEOUT_SETTING = {
  setting: 'timeoutMs',
  type: 'integer',
  default: String(DEFAULT_TIMEOUT_MS),
  description: 'time limit of one request to the upstream, to the last byte of the answer, in ms',
  config: z.int().min(1).max(MAX_TIMEOUT_MS),
} as const satisfies SettingRow;

/**
 * `loadUrlSetting` for a row of the table: the value given in code, else the row's variable,
 * else its default; a message names the row's setting or variable and, with `example`, a good value.
 */
export function loadUrlRow(
  row: { env: string; setting?: string; default: string },
  source: { value: string | undefined; env: Record<string, string | undefined>; example?: string },
): string {
  return loadUrlSetting({
    value: source.value,
    env: source.env,
    variable: row.env,
    setting: row.setting ?? row.env,
    fallback: row.default,
    ...(source.example === undefined ? {} : { example: source.example }),
  });
}

/**
 * What every HTTP provider resolves alike: its API base (`loadUrlRow` of its table's row), the
 * time limit of one request (`timeoutMs`, or under `timeoutSetting` when read from an older
 * name) and `fetch` (default: the global one).
 */
export function resolveHttpSettings(
  apiUrlRow: { env: string; setting?: string; default: string },
  settings: {
    apiUrl?: string | undefined;
    timeoutMs?: number | undefined;
    fetch?: typeof fetch | undefined;
    env?: Record<string, string | undefined> | undefined;
  },
  { example, timeoutSetting }: { example: string; timeoutSetting?: string },
): { apiUrl: string; timeoutMs: number; fetch: typeof fetch } {
  return {
    apiUrl: loadUrlRow(apiUrlRow, { value: settings.apiUrl, env: settings.env ?? process.env, example }),
    timeoutMs: loadTimeoutSetting(settings.timeoutMs, timeoutSetting ? { setting: timeoutSetting } : {}),
    fetch: settings.fetch ?? globalThis.fetch,
  };
}
