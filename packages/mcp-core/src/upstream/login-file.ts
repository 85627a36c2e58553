import { readFile, stat, unlink } from 'node:fs/promises';
import type { z } from 'zod';
import { ConfigError } from '../errors.js';
import { writePrivateFile } from '../private-file.js';

export interface LoginFileOptions<S extends z.ZodType> {
  /** Where the login lives. */
  path: string;
  /** What a valid file holds. A loose object keeps fields a newer writer added. */
  schema: S;
  /** How messages name the file, e.g. "Basecamp login file". */
  label: string;
  /** The command that writes a fresh one, e.g. "`basecamp-mcp login`". */
  loginCommand: string;
  /** The variable that moves the file, named when it cannot be read, e.g. `BASECAMP_TOKEN_FILE`. */
  pathVariable?: string;
}

export interface LoginFile<L> {
  readonly path: string;
  readonly label: string;
  /** The saved login; `undefined` when there is no file. A file that cannot be read or is invalid is a `ConfigError` naming the bad fields and the login command. */
  read(): Promise<L | undefined>;
  /** Saves atomically (a private temp file, fsynced, renamed over), mode 0600 in a 0700 directory. */
  write(login: L): Promise<void>;
  /** Deletes the file; whether there was one. */
  remove(): Promise<boolean>;
  /** A warning when others may read the file (not on Windows); `undefined` when it is private or absent. */
  modeWarning(): Promise<string | undefined>;
}

/**
 * A provider's kind of login file, declared once (what it holds, its messages, the variable that
 * moves it): the function it returns opens the file at a path, as `createLoginFile` does.
 */
export function loginFileKind<S extends z.ZodType>(
  schema: S,
  kind: Omit<LoginFileOptions<S>, 'path' | 'schema'>,
): (path: string) => LoginFile<z.output<S>> {
  return (path) => createLoginFile({ ...kind, schema, path });
}

/** One login file: the same read, validation, messages and private atomic writes for every provider. */
export function createLoginFile<S extends z.ZodType>(options: LoginFileOptions<S>): LoginFile<z.output<S>> {
  const { path, schema, label, loginCommand, pathVariable } = options;
  const again = `Run ${loginCommand} again.`;
  return {
    path,
    label,
    async read() {
      let raw: string;
      try {
        raw = await readFile(path, 'utf8');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') return undefined;
        throw new ConfigError(
          `Cannot read the ${label} at ${path} (${code ?? 'unknown error'}). Check its permissions${pathVariable ? ` or set ${pathVariable}` : ''}, then run ${loginCommand}.`,
        );
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        throw new ConfigError(`The ${label} is damaged (malformed, not JSON). ${again}`);
      }
      const result = schema.safeParse(parsed);
      if (!result.success) {
        const fields = [...new Set(result.error.issues.map((issue) => issue.path.join('.') || '(root)'))];
        throw new ConfigError(
          `The ${label} is invalid (bad or missing: ${fields.slice(0, 5).join(', ')}). ${again}`,
          { details: { fields: fields.slice(0, 5) } },
        );
      }
      return result.data;
    },
    async write(login) {
      await writePrivateFile(path, `${JSON.stringify(login, null, 2)}\n`);
    },
    async remove() {
      try {
        await unlink(path);
        return true;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
        throw error;
      }
    },
    async modeWarning() {
      if (process.platform === 'win32') return undefined;
      const info = await stat(path).catch(() => undefined);
      if (info === undefined) return undefined;
      const mode = info.mode & 0o777;
      if ((mode & 0o077) === 0) return undefined;
      return `The ${label} is readable by others (mode ${mode.toString(8)}). Run: chmod 600 ${path}`;
    },
  };
}
