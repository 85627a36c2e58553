import type { ReadinessCheck } from './tool.js';

/**
 * A readiness check that `url` answers HTTP at all (any status: a 404 still proves the upstream
 * is reachable). The detail names only the origin, never a path, query or credentials.
 */
export async function checkReachable(
  name: string,
  url: string,
  { signal, fetch: fetchImpl = fetch }: { signal: AbortSignal; fetch?: typeof fetch },
): Promise<ReadinessCheck> {
  const target = new URL(url);
  target.username = '';
  target.password = '';
  const { origin } = target;
  try {
    const response = await fetchImpl(target, { method: 'GET', redirect: 'manual', signal });
    await response.body?.cancel().catch(() => {});
    return { name, ok: true, detail: `${origin} answered (HTTP ${response.status})` };
  } catch {
    return { name, ok: false, detail: `${origin} did not answer` };
  }
}
