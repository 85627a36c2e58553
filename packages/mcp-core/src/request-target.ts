/**
 * The request target as a URL when it is in origin-form (`/path?query`), else undefined: an
 * absolute-form target (`http://h/mcp`) or `*` names no resource of this server, and `//` or
 * `//x` stay paths (a base URL would read them as a host).
 */
export function requestTarget(target: string | undefined, origin = 'http://localhost'): URL | undefined {
  if (target === undefined || !target.startsWith('/')) return undefined;
  try {
    return new URL(`${origin}${target}`);
  } catch {
    return undefined;
  }
}
