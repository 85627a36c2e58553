import { randomBytes } from 'node:crypto';
import { ConfigError, createLogger, observe } from '@x/mcp-core';
import type { BinContext } from '@x/mcp-core/node';
import { authMode } from './hosted.js';
import { hostedImport } from './hosted-import.js';

let started = false;

/**
 * `MCP_AUDIT` outside `--auth oauth` (stdio, or HTTP with a bearer token or none): off unless
 * set; `file:<path>` in any mode, `stdout` in HTTP mode only (in stdio mode stdout carries
 * JSON-RPC). Records have no user (the server has one caller). Arguments are hashed with a key
 * derived from `MCP_SECRET` when it is set, else with a key of this run (the same text gives the
 * same hash within one run only). With `--auth oauth` the hosted server keeps its own log.
 */
export async function startLocalAudit(
  context: BinContext,
  env: NodeJS.ProcessEnv = process.env,
): Promise<void> {
  const value = env.MCP_AUDIT?.trim();
  if (started || !value || value === 'off' || authMode(context.flags.auth, env) === 'oauth') return;
  if (value === 'redis') {
    throw new ConfigError(
      'MCP_AUDIT=redis writes to the store of --auth oauth; without it use MCP_AUDIT=file:<path>.',
    );
  }
  if (value === 'stdout' && context.transport !== 'http') {
    throw new ConfigError(
      'MCP_AUDIT=stdout: in stdio mode stdout carries the JSON-RPC messages; use MCP_AUDIT=file:<path>.',
    );
  }
  const audit = await hostedImport(import('@x/mcp-hosted/audit'));
  const target = audit.auditTarget(value, 'memory:');
  if (target.kind === 'off') return;
  const argumentKey = env.MCP_SECRET
    ? audit.auditArgumentKey(audit.Keyring.fromEnv(env))
    : new Uint8Array(randomBytes(32));
  const logger = createLogger('audit');
  const log = new audit.AuditLog({ sink: await audit.openAuditSink(target, env), argumentKey, logger });
  observe(log.observer);
  started = true;
  logger.info(`audit log: ${log.sink.name}`);
}
