import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { ConfigError, type ProviderMetadata } from '@x/mcp-core';
import { z } from 'zod';
import { CATALOG, PROVIDER_IDS, PROVIDERS, type ProviderId } from './catalog.js';

const rules = z.array(z.string().min(1).max(100)).max(100);

/** How the config file serves one provider; `settings` are that provider's own (its metadata's schema). */
export interface ProviderConfig {
  /** The tool name prefix; `false` for none. Default: the provider's (its id with `_`, e.g. `team_chat_`). */
  prefix?: string | false;
  include?: string[];
  exclude?: string[];
  readOnly?: boolean;
  settings?: Record<string, unknown>;
  /**
   * `--auth oauth` only, for a provider over the server's own files (`hosted: 'local'`): serve it
   * to every signed-in user. Default false: not served in oauth mode.
   */
  shared?: boolean;
}

const providerConfig = (provider: ProviderMetadata) => {
  const own = z.strictObject({
    prefix: z
      .union([
        z.string().regex(/^[a-zA-Z0-9_-]*$/, 'may only contain letters, digits, _ and -'),
        z.literal(false),
      ])
      .optional(),
    include: rules.min(1).optional(),
    exclude: rules.optional(),
    readOnly: z.boolean().optional(),
    settings: provider.settings.optional(),
  });
  return provider.hosted === 'local' ? own.extend({ shared: z.boolean().optional() }) : own;
};

const ServerConfigBase = z.strictObject({
  $schema: z.string().optional(),
  /** `false` serves every tool under its own name unless a provider sets a prefix. Default true. */
  prefix: z.boolean().optional(),
  /** Serve only read-only tools, of every provider. */
  readOnly: z.boolean().optional(),
  /**
   * `search`: offer search_tools, describe_tool and call_tool instead of every tool (below
   * `--surface` and `MCP_SURFACE`). Default `list`.
   */
  surface: z.enum(['list', 'search']).optional(),
});

/** The config file: which providers to serve, and how. */
export type ServerConfig = z.output<typeof ServerConfigBase> & {
  /** The providers to serve, by id; default: all of them. */
  providers?: Partial<Record<ProviderId, ProviderConfig>>;
};

/** The config file's schema: one key per provider this server serves, each with its own settings. */
export const ConfigSchema: z.ZodType<ServerConfig> = ServerConfigBase.extend({
  providers: z
    .strictObject(
      Object.fromEntries(PROVIDERS.map((provider) => [provider.id, providerConfig(provider).optional()])),
    )
    .optional(),
}) as z.ZodType<ServerConfig>;

/** Settings that name files: relative paths are relative to the config file. */
const pathSettings = (id: ProviderId): readonly string[] =>
  (CATALOG.get(id)?.settingsTable ?? []).flatMap((row) =>
    row.type === 'path' && row.setting !== undefined ? [row.setting] : [],
  );

/** Reads and validates a config file; every problem is a `ConfigError` naming the file and the key. */
export async function loadConfig(file: string): Promise<ServerConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `Cannot read the config file ${file}: ${(error as NodeJS.ErrnoException).code ?? error}.`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`The config file ${file} is not valid JSON: ${(error as Error).message}`);
  }
  return parseConfig(raw, file);
}

export function parseConfig(raw: unknown, file = 'the config'): ServerConfig {
  const parsed = ConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(describeIssue);
    throw new ConfigError(
      `Invalid config in ${file}:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`,
    );
  }
  const base = dirname(resolve(file));
  for (const [id, provider] of Object.entries(parsed.data.providers ?? {})) {
    const settings = provider?.settings ?? {};
    for (const [key, value] of Object.entries(settings)) {
      if (pathSettings(id).includes(key) && typeof value === 'string' && isRelativePath(value)) {
        settings[key] = resolve(base, value);
      }
    }
  }
  return parsed.data;
}

/** A path like `./data` or `data/x` (not a bare command name such as `bbjcpl`, which PATH resolves). */
const isRelativePath = (value: string) => !isAbsolute(value) && /[/\\]|^\./.test(value);

function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const inProviders = where === 'providers';
    return issue.keys
      .map((key) =>
        inProviders
          ? `providers.${key}: unknown provider (known: ${PROVIDER_IDS.join(', ')})`
          : `${where ? `${where}.` : ''}${key}: unknown key`,
      )
      .join('\n  - ');
  }
  return `${where || '(root)'}: ${issue.message}`;
}
