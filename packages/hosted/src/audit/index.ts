// `@x/mcp-hosted/audit`: the audit log without the authorization server (no oidc-provider), so
// that a server outside `--auth oauth` (stdio, a bearer token) can keep one too, on Node 20.

export { Keyring } from '../crypto.js';
export { type AuditEntry, type AuditEvent, AuditLog, type AuditLogOptions } from './audit-log.js';
export { type AuditTarget, auditArgumentKey, auditTarget, openAuditSink } from './config.js';
export { parseSince, type TailFilter, tailAudit, verifyAudit } from './read.js';
