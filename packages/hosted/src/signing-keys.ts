import { createHash, generateKeyPairSync, type JsonWebKey } from 'node:crypto';
import { ConflictError } from '@x/mcp-core';
import type { Keyring } from './crypto.js';
import type { KvStore } from './store/kv.js';
import { SealedRecords } from './store/sealed.js';

/** A private signing key as a JWK (ES256, P-256), with its RFC 7638 thumbprint as `kid`. */
export interface SigningJwk extends JsonWebKey {
  kid: string;
  alg: 'ES256';
  use: 'sig';
}

/** The store key of the signing keys (sealed). */
export const SIGNING_KEYS_KEY = 'keys:jwks';
/** Keys kept: the current one signs; the previous one still verifies tokens issued before a rotation. */
const KEEP = 2;

/**
 * The authorization server's signing keys (a JWKS with private parts for oidc-provider's
 * `jwks`), generated once and shared through the store: the first replica to start creates
 * them (set-if-absent), every other replica reads the same ones. Stored sealed with the keyring.
 * The first key signs.
 */
export async function loadSigningKeys(store: KvStore, keyring: Keyring): Promise<SigningJwk[]> {
  const records = new SealedRecords(store, keyring);
  for (let attempt = 0; attempt < 5; attempt++) {
    const existing = await records.get<{ keys: SigningJwk[] }>(SIGNING_KEYS_KEY);
    if (existing) return existing.value.keys;
    const written = await records.set(SIGNING_KEYS_KEY, { keys: [generateSigningKey()] }, { ifVersion: 0 });
    if (written !== undefined)
      return (await records.get<{ keys: SigningJwk[] }>(SIGNING_KEYS_KEY))?.value.keys ?? [];
  }
  throw new ConflictError('The signing keys could not be created (concurrent writers); retry.');
}

/**
 * Puts a new signing key first and keeps the previous one for verification (older keys are
 * dropped). Replicas pick the new keys up when they next load them.
 */
export async function rotateSigningKeys(store: KvStore, keyring: Keyring): Promise<SigningJwk[]> {
  const records = new SealedRecords(store, keyring);
  for (let attempt = 0; attempt < 5; attempt++) {
    const existing = await records.get<{ keys: SigningJwk[] }>(SIGNING_KEYS_KEY);
    const keys = [generateSigningKey(), ...(existing?.value.keys ?? [])].slice(0, KEEP);
    const written = await records.set(SIGNING_KEYS_KEY, { keys }, { ifVersion: existing?.version ?? 0 });
    if (written !== undefined) return keys;
  }
  throw new ConflictError('The signing keys changed while rotating; retry.');
}

/** The public half of signing keys (what `/jwks` publishes). */
export function publicJwks(keys: readonly SigningJwk[]): { keys: JsonWebKey[] } {
  return { keys: keys.map(({ kty, crv, x, y, kid, alg, use }) => ({ kty, crv, x, y, kid, alg, use })) };
}

function generateSigningKey(): SigningJwk {
  const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  // RFC 7638: the thumbprint of the required public members, in lexicographic order.
  const thumbprint = createHash('sha256')
    .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }))
    .digest('base64url');
  return { ...jwk, kid: thumbprint, alg: 'ES256', use: 'sig' };
}
