import type { Keyring } from './crypto.js';
import { KeyUnavailableError } from './errors.js';
import type { KvStore } from './store/kv.js';

/** The store key of the fleet's sealing key id (plain JSON: key ids are not secret). */
export const KEY_META_KEY = 'keys:meta';

/** `keys:meta`: which key every replica seals with. */
export interface KeyMeta {
  /** The id of the key new records are sealed with (16 hex digits). */
  active: string;
  /** When it became the active key (ISO 8601). */
  since: string;
}

/** The store's `keys:meta`, or `undefined` when absent (or not ours). */
export async function readKeyMeta(store: KvStore): Promise<KeyMeta | undefined> {
  const entry = await store.get(KEY_META_KEY);
  if (!entry) return undefined;
  try {
    const meta = JSON.parse(entry.value) as Partial<KeyMeta>;
    if (typeof meta.active === 'string' && /^[0-9a-f]{16}$/.test(meta.active)) {
      return { active: meta.active, since: String(meta.since ?? '') };
    }
  } catch {
    // Not JSON: treated as absent, and replaced by the next writer.
  }
  return undefined;
}

/**
 * At start: seal with the key the store's `keys:meta` names; when there is none yet (a new store,
 * or one from before `keys:meta`), record the keyring's own sealing key (`MCP_SECRET_PREVIOUS`'s
 * during a rotation, else `MCP_SECRET`'s). A `ConfigError` when the store names a key this
 * keyring does not hold: the replica must not start and write what the fleet cannot read, or
 * fail to read what the fleet wrote. Resolves with the id now sealing.
 */
export async function adoptKeyMeta(store: KvStore, keyring: Keyring): Promise<string> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const meta = await readKeyMeta(store);
    if (meta) {
      keyring.useSealingKey(meta.active);
      return meta.active;
    }
    const created = await store.set(
      KEY_META_KEY,
      JSON.stringify({ active: keyring.sealingKeyId, since: new Date().toISOString() } satisfies KeyMeta),
      { ifVersion: 0 },
    );
    if (created !== undefined) return keyring.sealingKeyId;
  }
  return keyring.sealingKeyId;
}

/**
 * Before a write while the keyring still seals with `MCP_SECRET_PREVIOUS`: switches to
 * `MCP_SECRET` once `keys rotate` has named it in `keys:meta` (one store read per such write;
 * none once the keyring seals with `MCP_SECRET`, which is final). A `KeyUnavailableError` when
 * the store names a key this keyring does not hold.
 */
export async function followKeyMeta(store: KvStore, keyring: Keyring): Promise<void> {
  if (keyring.sealingKeyId === keyring.currentKeyId) return;
  const meta = await readKeyMeta(store);
  if (!meta || meta.active === keyring.sealingKeyId) return;
  if (!keyring.keyIds.includes(meta.active)) throw new KeyUnavailableError(meta.active, keyring.keyIds);
  keyring.useSealingKey(meta.active);
}

/**
 * `keys rotate`'s first step: names `MCP_SECRET`'s key in `keys:meta`, so every replica seals
 * with it from its next write on. A `ConfigError` when `keys:meta` names a key this keyring does
 * not hold (a rotation from a secret that is neither of its two).
 */
export async function activateCurrentKey(store: KvStore, keyring: Keyring): Promise<KeyMeta> {
  const meta = await readKeyMeta(store);
  if (meta) keyring.useSealingKey(meta.active);
  const next: KeyMeta =
    meta?.active === keyring.currentKeyId
      ? meta
      : { active: keyring.currentKeyId, since: new Date().toISOString() };
  if (next !== meta) await store.set(KEY_META_KEY, JSON.stringify(next));
  keyring.useSealingKey(next.active);
  return next;
}
