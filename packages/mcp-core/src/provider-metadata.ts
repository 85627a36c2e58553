import type { z } from 'zod';
import type { HostedConnectionDeclaration } from './hosted-connection.js';
import type { SandboxHandle } from './runner.js';
import type { ToolProvider } from './tool.js';
import type { SettingRow } from './upstream/settings-table.js';

/**
 * Who supplies a provider's upstream credentials when a server serves several people
 * (`--auth oauth`): only declared here; the hosted server decides what it does with it.
 * - `per-user`: every person signs in or links their own account (Basecamp, Forge): the provider
 *   declares how in `connection`;
 * - `shared`: one set of credentials (or none) for everyone, e.g. a documentation service;
 * - `local`: the server's own files or tools, served to everyone only when the composed server's
 *   config marks the provider `"shared": true`, else not at all in that mode.
 */
export type HostedCredentials = 'per-user' | 'shared' | 'local';

/**
 * What a provider package is, exported from its light `./metadata` entry (zod and the
 * settings table only; the provider and its fake load when `create` or `sandbox` is called).
 * A composed server is built from these: its catalog, its config schema, its `--help`.
 */
export interface ProviderMetadata<Settings extends z.ZodType = z.ZodType> {
  /** Lower-case words joined by `-`, e.g. `context-forge`: the key in a composed server's config. */
  id: string;
  /** The name people know it by, e.g. `Context Forge` (`--help` lists these). */
  title: string;
  /** The tool name prefix a composed server gives it by default, e.g. `context_forge_`. */
  prefix: string;
  /** The names of its toolsets, when it has any to choose from (`toolsets` setting). */
  toolsets?: readonly string[];
  /** The settings a config file may give: non-secret, JSON-shaped, validated strictly. */
  settings: Settings;
  /**
   * Its settings table, every setting declared once (`SettingRow` of `@x/mcp-core/upstream`):
   * `settings` is derived from it, and so are `--help`, `server.json`'s variables and the README's
   * table. A composed server resolves the `path` settings of a config file against the file.
   */
  settingsTable: readonly SettingRow[];
  /** Who supplies its credentials in hosted mode. */
  hosted: HostedCredentials;
  /**
   * With `hosted: 'per-user'`: how each person connects (`hosted-connection.ts`): a sign-in that
   * can be the identity, or a linked account with its own login. Loaded only in hosted mode.
   */
  connection?: HostedConnectionDeclaration;
  /**
   * Tools that act on the serving machine itself (its disk, its git checkout), never on a user's
   * account: a hosted, multi-user server does not serve them.
   */
  localTools?: readonly string[];
  /** The provider with these settings (the rest from its environment variables). */
  create(settings: z.output<Settings>): Promise<ToolProvider>;
  /** The provider on its local fake (`--sandbox`); settings that choose tools apply. */
  sandbox(settings: z.output<Settings>): Promise<SandboxHandle<ToolProvider>>;
}
