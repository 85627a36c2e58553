import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { type RunningProcess, startHttpBin } from '@x/mcp-core/testing';
import { PROVIDERS } from '../src/catalog.js';

/** The built composed server. */
export const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

export type HttpServer = RunningProcess & { url: string; base: string };

/** Starts the built server with `--http --port 0` and waits for its URL. */
export async function startHttpServer(args: string[], env: Record<string, string> = {}): Promise<HttpServer> {
  const server = await startHttpBin({
    command: process.execPath,
    args: [bin, '--http', '--port', '0', ...args],
    env,
  });
  return { ...server, base: new URL(server.url).origin };
}

export interface RoundRobinProxy {
  url: string;
  /** Requests forwarded to each upstream, by index. */
  counts: number[];
  close(): Promise<void>;
}

/** A minimal load balancer: each request goes to the next upstream in turn, streamed both ways. */
export async function startRoundRobinProxy(upstreams: readonly string[]): Promise<RoundRobinProxy> {
  const counts = upstreams.map(() => 0);
  let next = 0;
  const server: Server = createServer((incoming, outgoing) => {
    const index = next++ % upstreams.length;
    counts[index] = (counts[index] ?? 0) + 1;
    const target = new URL(incoming.url ?? '/', upstreams[index]);
    const forwarded = request(
      target,
      { method: incoming.method, headers: { ...incoming.headers, host: target.host } },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      },
    );
    forwarded.on('error', () => {
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
    });
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Every tool the composed server serves by default (`--sandbox`, no config): each provider's own
 * on its fake, under the prefix its metadata declares. Tests compare with this, not with a count.
 */
export async function defaultToolNames(): Promise<string[]> {
  const names: string[] = [];
  for (const provider of PROVIDERS) {
    const sandbox = await provider.sandbox({});
    try {
      names.push(...sandbox.provider.tools.map((tool) => `${provider.prefix}${tool.name}`));
    } finally {
      await sandbox.close();
    }
  }
  return names;
}
