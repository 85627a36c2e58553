/** The scope of before issue #24: read and write. Still granted to clients that ask for it. */
export const MCP_SCOPE = 'mcp';
/** Read tools only (those whose annotations say `readOnlyHint: true`). */
export const READ_SCOPE = 'mcp:read';
/** Every served tool; implies {@link READ_SCOPE}. */
export const WRITE_SCOPE = 'mcp:write';
/** The scopes of the MCP endpoint. */
export const MCP_SCOPES: readonly string[] = [MCP_SCOPE, READ_SCOPE, WRITE_SCOPE];
/**
 * What a client should ask for (the protected resource metadata, the 401 challenge) and what a
 * write needs (the 403 step-up challenge): both, so the consent page can offer read only.
 */
export const READ_WRITE_SCOPES: readonly string[] = [READ_SCOPE, WRITE_SCOPE];

/** What a set of scopes allows on the MCP endpoint. */
export type McpAccess = 'write' | 'read' | 'none';

/** `mcp` and `mcp:write` allow everything; `mcp:read` read tools only. */
export function mcpAccess(scopes: Iterable<string>): McpAccess {
  let access: McpAccess = 'none';
  for (const scope of scopes) {
    if (scope === MCP_SCOPE || scope === WRITE_SCOPE) return 'write';
    if (scope === READ_SCOPE) access = 'read';
  }
  return access;
}

/** The MCP scopes among `scopes`, in their order. */
export function mcpScopesOf(scopes: Iterable<string>): string[] {
  return [...new Set(scopes)].filter((scope) => MCP_SCOPES.includes(scope));
}

/**
 * The scopes an authorization request asks for, with the MCP scopes it implies added: `mcp`
 * and `mcp:write` imply `mcp:read` and `mcp:write` (so the person can grant read only, which a
 * token then carries as `mcp:read`); no MCP scope at all means `fallback`. Only scopes `allowed`
 * says the client may ask for are added (a client registered for `mcp:read` is not widened);
 * other scopes are kept as they are (unknown ones are never granted).
 */
export function impliedRequestScopes(
  requested: readonly string[],
  fallback: readonly string[],
  allowed: (scope: string) => boolean,
): string[] {
  const asked = mcpScopesOf(requested);
  const mcp = asked.length > 0 ? asked : fallback;
  const implied = mcpAccess(mcp) === 'write' ? READ_WRITE_SCOPES.filter(allowed) : [];
  return [...new Set([...requested, ...mcp, ...implied])];
}
