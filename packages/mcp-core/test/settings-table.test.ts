import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  configSchemaOf,
  environmentOf,
  environmentProblems,
  indexSettings,
  resolveHttpSettings,
  type SettingRow,
} from '../src/upstream/index.js';

const TABLE = [
  {
    setting: 'apiUrl',
    env: 'NOTES_API_URL',
    type: 'url',
    default: 'https://notes.example/api',
    description: 'the API',
    config: z.url(),
  },
  { setting: 'token', env: 'NOTES_TOKEN', type: 'string', secret: true, description: 'the token' },
  { setting: 'timeoutMs', type: 'integer', description: 'time limit', config: z.int().min(1) },
  { env: 'NOTES_REDIRECT_URI', type: 'url', description: 'login only' },
] as const satisfies readonly SettingRow[];

describe('a settings table', () => {
  it('gives --help its variables, with defaults and secrets, in order', () => {
    expect(environmentOf(TABLE)).toEqual([
      { name: 'NOTES_API_URL', description: 'the API', default: 'https://notes.example/api' },
      { name: 'NOTES_TOKEN', description: 'the token', secret: true },
      { name: 'NOTES_REDIRECT_URI', description: 'login only' },
    ]);
    expect(environmentProblems(environmentOf(TABLE), { readme: 'NOTES_API_URL NOTES_TOKEN' })).toEqual([
      'the README does not mention NOTES_REDIRECT_URI',
    ]);
  });

  it('gives a config file only the rows with a schema, strictly, each optional and described', () => {
    const schema = configSchemaOf(TABLE);
    expect(Object.keys(schema.shape)).toEqual(['apiUrl', 'timeoutMs']);
    expect(schema.parse({})).toEqual({});
    expect(schema.parse({ apiUrl: 'https://x.example', timeoutMs: 5 })).toEqual({
      apiUrl: 'https://x.example',
      timeoutMs: 5,
    });
    // A secret, or a setting the table does not allow in a file, is refused by name.
    const refused = schema.safeParse({ token: 'secret' });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['token'] });
    expect(schema.safeParse({ timeoutMs: 0 }).success).toBe(false);
    expect(schema.shape.apiUrl.description).toBe('the API');
  });

  it('refuses a config schema on a row without a setting name', () => {
    expect(() =>
      configSchemaOf([{ env: 'X_Y', type: 'string', description: 'x', config: z.string() }]),
    ).toThrow('The variable X_Y cannot be in a config file: it names no setting.');
  });

  it('indexes its rows by setting, else by variable, for the reader', () => {
    const settings = indexSettings(TABLE);
    expect(settings.apiUrl.env).toBe('NOTES_API_URL');
    expect(settings.apiUrl.default).toBe('https://notes.example/api');
    expect(settings.NOTES_REDIRECT_URI.type).toBe('url');
    expect(Object.keys(settings)).toEqual(['apiUrl', 'token', 'timeoutMs', 'NOTES_REDIRECT_URI']);
  });

  it('resolves what every HTTP provider has from its rows: the API base, the time limit, fetch', () => {
    const row = indexSettings(TABLE).apiUrl;
    const resolved = resolveHttpSettings(
      row,
      { env: { NOTES_API_URL: 'https://other.example/v2/' } },
      { example: 'x' },
    );
    expect(resolved).toEqual({
      apiUrl: 'https://other.example/v2',
      timeoutMs: 30_000,
      fetch: globalThis.fetch,
    });
    expect(resolveHttpSettings(row, { env: {} }, { example: 'x' }).apiUrl).toBe('https://notes.example/api');
    expect(() =>
      resolveHttpSettings(row, { env: { NOTES_API_URL: 'ftp://x' } }, { example: 'the API' }),
    ).toThrow('NOTES_API_URL must be an http(s) URL, got "ftp://x". Set it to the API.');
    expect(() =>
      resolveHttpSettings(
        row,
        { env: {}, timeoutMs: 0 },
        { example: 'x', timeoutSetting: 'requestTimeoutMs' },
      ),
    ).toThrow('requestTimeoutMs must be a whole number of milliseconds from 1 to 120000, got "0".');
  });
});
