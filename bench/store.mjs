#!/usr/bin/env node
// The hosted store drivers on this machine, same run: `sqlite:` (node:sqlite, one file) against
// `redis://` (a redis-server this script starts on a free port, no persistence). Both are filled
// with the records of N users (default 10,000: a sealed Basecamp connection, a profile, sealed
// oidc-provider Session, Grant and RefreshToken records, the account index set), then measured
// one call at a time: the latency of a compare-and-set write of a connection record, of a read
// of one, and of the per-request pair read (grant + connection, `getMany`); the file size (the
// database and its -wal) and Redis's dataset memory. Medians of --rounds rounds (default 3).
//
//   node bench/store.mjs                 # about 2 minutes      (pnpm bench:store builds first)
//   node bench/store.mjs --quick         # 1,000 users, 1 round
//   node bench/store.mjs --help
//
// node:sqlite needs Node 22.13+: on an older Node this script runs itself again on the Node 22
// that scripts/node22.mjs installs. Results: bench/results/store.json and a markdown table.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { fmt, guardRun, log, machine, median, quantile, ROOT } from './lib.mjs';

const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    users: { type: 'string' },
    samples: { type: 'string' },
    rounds: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (flags.help) {
  process.stdout.write(`node bench/store.mjs [--quick] [--users 10000] [--samples 2000] [--rounds 3]
  The sqlite: and redis:// stores filled with --users users' records, then per round --samples
  compare-and-set writes of a connection record, reads of one, and grant + connection pair reads,
  one at a time: p50 and p99 latency (medians of the rounds), file size and Redis memory.
`);
  process.exit(0);
}

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 13)) {
  const { node22 } = await import('../scripts/node22.mjs');
  try {
    execFileSync(node22(), [new URL(import.meta.url).pathname, ...process.argv.slice(2)], {
      stdio: 'inherit',
    });
    process.exit(0);
  } catch (error) {
    process.exit(error.status ?? 1);
  }
}

const config = {
  users: Number(flags.users ?? (flags.quick ? 1000 : 10_000)),
  samples: Number(flags.samples ?? (flags.quick ? 500 : 2000)),
  rounds: Number(flags.rounds ?? (flags.quick ? 1 : 3)),
};
guardRun(20 * 60_000);

const { createStore, Keyring, SealedRecords } = await import('../packages/hosted/dist/index.js');
const { startRedisServer } = await import('../packages/hosted/dist/testing/index.js');
const { Redis } = createRequire(join(ROOT, 'packages/hosted/package.json'))('ioredis');

const keyring = Keyring.fromSecrets({ secret: 'a-bench-secret-of-at-least-32-bytes-0123456789' });
const token = (bytes) => randomBytes(bytes).toString('base64url');

/** Plaintexts shaped like the server's: sealed, they come out at about 0.3–2 kB each. */
function connection(user) {
  return {
    v: 1,
    status: 'active',
    identity: { id: user, firstName: 'Bench', lastName: `User ${user}`, email: `user${user}@example.com` },
    accountId: 999999999,
    accountName: 'Honcho Design',
    accessToken: `BAhbB0kiAbB7ImNsaWVudF9pZCI6${token(300)}`,
    refreshToken: `BAhbB0kiAbB7InJlZnJlc2gi${token(300)}`,
    expiresAt: Date.now() + 14 * 86_400_000,
    refreshedAt: Date.now(),
  };
}
const profile = (user) => ({
  name: `Bench User ${user}`,
  email: `user${user}@example.com`,
  createdAt: Date.now(),
  lastSeenAt: Date.now(),
  disabled: false,
  primary: 'basecamp',
});
const oidcSession = (user) => ({
  accountId: `basecamp:${user}`,
  loginTs: Date.now() / 1000,
  authorizations: { [token(16)]: { sid: token(16), grantId: token(32) } },
  kind: 'Session',
  jti: token(32),
  exp: Date.now() / 1000 + 86_400,
});
const oidcGrant = (user) => ({
  accountId: `basecamp:${user}`,
  clientId: `https://claude.ai/oauth/mcp-oauth-client-metadata-${user}`,
  kind: 'Grant',
  jti: token(32),
  openid: { scope: 'mcp' },
  resources: { 'https://mcp.example.com/mcp': 'mcp' },
  exp: Date.now() / 1000 + 30 * 86_400,
});
const oidcRefreshToken = (user, grantId) => ({
  accountId: `basecamp:${user}`,
  clientId: `https://claude.ai/oauth/mcp-oauth-client-metadata-${user}`,
  grantId,
  kind: 'RefreshToken',
  jti: token(32),
  scope: 'mcp',
  resource: 'https://mcp.example.com/mcp',
  rotations: 0,
  iat: Date.now() / 1000,
  exp: Date.now() / 1000 + 30 * 86_400,
  sessionUid: token(16),
  expiresWithSession: false,
  'x5t#S256': undefined,
  authTime: Date.now() / 1000,
});

const keysOf = (user) => ({
  connection: `conn:basecamp:${user}:basecamp`,
  profile: `user:basecamp:${user}`,
  grant: `oidc:Grant:grant-${user}`,
});

/** Fills the store; resolves with the seconds it took and the bytes of the values written. */
async function fill(store) {
  const records = new SealedRecords(store, keyring);
  const started = performance.now();
  let bytes = 0;
  const BATCH = 50;
  for (let first = 0; first < config.users; first += BATCH) {
    const batch = [];
    for (let user = first; user < Math.min(first + BATCH, config.users); user++) {
      const keys = keysOf(user);
      batch.push(
        (async () => {
          await records.set(keys.connection, connection(user));
          await store.set(keys.profile, JSON.stringify(profile(user)));
          await records.set(keys.grant, oidcGrant(user), { ttlMs: 30 * 86_400_000 });
          await records.set(`oidc:Session:${token(32)}`, oidcSession(user), { ttlMs: 86_400_000 });
          await records.set(`oidc:RefreshToken:${token(32)}`, oidcRefreshToken(user, `grant-${user}`), {
            ttlMs: 30 * 86_400_000,
          });
          await store.sadd(`oidc:idx:account:basecamp:${user}`, [`grant-${user}`], {
            ttlMs: 30 * 86_400_000,
          });
          const entry = await store.get(keys.connection);
          bytes += entry.value.length;
        })(),
      );
    }
    await Promise.all(batch);
  }
  return { seconds: (performance.now() - started) / 1000, connectionBytes: bytes / config.users };
}

/** One round of latency samples, one call at a time. */
async function measure(store) {
  const write = [];
  const read = [];
  const pair = [];
  for (let sample = 0; sample < config.samples; sample++) {
    const user = Math.floor(Math.random() * config.users);
    const keys = keysOf(user);
    const current = await store.get(keys.connection);
    const sealed = keyring.encrypt(JSON.stringify(connection(user)), keys.connection);
    let started = performance.now();
    const version = await store.set(keys.connection, sealed, { ifVersion: current.version });
    write.push(performance.now() - started);
    if (version === undefined)
      throw new Error(`compare-and-set lost on ${keys.connection}: nothing else writes`);

    const other = keysOf(Math.floor(Math.random() * config.users));
    started = performance.now();
    const entry = await store.get(other.connection);
    read.push(performance.now() - started);
    if (!entry) throw new Error(`${other.connection} is missing`);
    started = performance.now();
    const both = await store.getMany([other.grant, other.connection]);
    pair.push(performance.now() - started);
    if (both.some((value) => value === undefined))
      throw new Error(`${other.grant} or its connection is missing`);
  }
  const ms = (values) => ({ p50: quantile(values, 0.5), p99: quantile(values, 0.99) });
  return { write: ms(write), read: ms(read), pair: ms(pair) };
}

const fileSize = (path) => (existsSync(path) ? statSync(path).size : 0);

const root = await mkdtemp(join(tmpdir(), 'x-bench-store-'));
const dbPath = join(root, 'store.db');
const redis = await startRedisServer();
const results = { machine: machine(), config, drivers: {} };
try {
  log(`Filling sqlite:${dbPath} and ${redis.url} with ${config.users} users ...`);
  let started = performance.now();
  const sqlite = await createStore(`sqlite:${dbPath}`);
  const sqliteFill = await fill(sqlite);
  log(`  sqlite: ${fmt(sqliteFill.seconds)} s`);
  const redisStore = await createStore(redis.url);
  const redisFill = await fill(redisStore);
  log(`  redis:  ${fmt(redisFill.seconds)} s`);

  // Reopening the filled file: what a server start or an admin command pays.
  await sqlite.close();
  started = performance.now();
  const reopened = await createStore(`sqlite:${dbPath}`);
  const openMs = performance.now() - started;

  const rounds = { sqlite: [], redis: [] };
  for (let round = 0; round < config.rounds; round++) {
    // Alternate which driver goes first, so neither always gets the warmer machine.
    const order = round % 2 === 0 ? ['sqlite', 'redis'] : ['redis', 'sqlite'];
    for (const name of order) {
      rounds[name].push(await measure(name === 'sqlite' ? reopened : redisStore));
    }
    log(`  round ${round + 1}/${config.rounds} done`);
  }

  const info = await (async () => {
    const client = new Redis(redis.url);
    try {
      const text = await client.info('memory');
      return Object.fromEntries(
        text
          .split('\r\n')
          .filter((line) => line.includes(':'))
          .map((line) => line.split(':')),
      );
    } finally {
      client.disconnect();
    }
  })();
  const sizes = {
    db: fileSize(dbPath),
    wal: fileSize(`${dbPath}-wal`),
  };
  await reopened.close();
  await redisStore.close();
  sizes.closed = fileSize(dbPath) + fileSize(`${dbPath}-wal`);

  const summarise = (list) => {
    const pick = (kind, q) => median(list.map((round) => round[kind][q]));
    return Object.fromEntries(
      ['write', 'read', 'pair'].map((kind) => [kind, { p50: pick(kind, 'p50'), p99: pick(kind, 'p99') }]),
    );
  };
  results.drivers.sqlite = {
    fill: sqliteFill,
    openMs,
    latencyMs: summarise(rounds.sqlite),
    rounds: rounds.sqlite,
    bytes: sizes,
  };
  results.drivers.redis = {
    fill: redisFill,
    latencyMs: summarise(rounds.redis),
    rounds: rounds.redis,
    bytes: { usedMemory: Number(info.used_memory), dataset: Number(info.used_memory_dataset) },
  };
} finally {
  await redis.stop();
  rmSync(root, { recursive: true, force: true });
}

const s = results.drivers.sqlite;
const r = results.drivers.redis;
const MiB = (bytes) => fmt(bytes / 1024 ** 2);
const us = (ms) => fmt(ms * 1000, 0);
const row = (name, d, size) =>
  `| ${name} | ${us(d.latencyMs.write.p50)} / ${us(d.latencyMs.write.p99)} | ${us(d.latencyMs.read.p50)} / ${us(d.latencyMs.read.p99)} | ${us(d.latencyMs.pair.p50)} / ${us(d.latencyMs.pair.p99)} | ${fmt(d.fill.seconds)} s | ${size} |`;
const markdown = [
  `${config.users.toLocaleString('en-US')} users (${(config.users * 5).toLocaleString('en-US')} records, a sealed connection ≈ ${fmt(s.fill.connectionBytes / 1024)} kB), ${config.samples.toLocaleString('en-US')} samples per round, medians of ${config.rounds} rounds; latency in µs, one call at a time.`,
  '',
  '| store | CAS write of a connection p50 / p99 | read p50 / p99 | grant + connection (`getMany`) p50 / p99 | fill | size |',
  '|---|---|---|---|---|---|',
  row(
    '`sqlite:`',
    s,
    `${MiB(s.bytes.db + s.bytes.wal)} MiB file (+ -wal ${MiB(s.bytes.wal)}); ${MiB(s.bytes.closed)} MiB closed`,
  ),
  row('`redis://`', r, `${MiB(r.bytes.dataset)} MiB dataset (${MiB(r.bytes.usedMemory)} MiB used_memory)`),
  '',
  `Reopening the filled sqlite file: ${fmt(s.openMs)} ms.`,
].join('\n');
results.markdown = markdown;
mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(join(ROOT, 'bench/results/store.json'), `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`${markdown}\n`);
process.exit(0);
