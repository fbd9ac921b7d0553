// Operator commands (issue 31): `backup --out FILE`, `restore --in FILE` and `move --to postgres://…`. A backup
// is a consistent snapshot of the configured store (store/snapshot.ts) with the secrets the deployment needs —
// the JWT key, the address seed and, on evm, the treasury mnemonic — so the file is as sensitive as the
// deployment itself: it is written 0600, and docs/operators/backups.md says how to keep it. Restore and move load only into an
// empty store.
import { createHash } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Config } from './config.ts';
import { verifyLedger } from './ledger/verify.ts';
import type { Store } from './store/db.ts';
import { migrateToLatest } from './store/migrate.ts';
import {
  decodeLine,
  loadSnapshot,
  SnapshotError,
  type SnapshotHeader,
  type SnapshotSecrets,
  writeSnapshot,
} from './store/snapshot.ts';

const decoder = new TextDecoder();

export interface OperateContext {
  config: Config;
  /** The service's store, or (move) the one at `target.databaseUrl`, in the schema every command reads alike. */
  openStore: (target?: { databaseUrl: string }) => Promise<Store>;
  print: (text: string) => void;
  nowIso: () => string;
}

function secretsOf(config: Config): SnapshotSecrets {
  const mnemonicFile = join(config.dataDir, 'treasury-mnemonic');
  return {
    jwtSecret: decoder.decode(config.jwtSecret),
    addressSecret: decoder.decode(config.addressSecret),
    treasuryMnemonic:
      config.evm?.mnemonic ?? (existsSync(mnemonicFile) ? readFileSync(mnemonicFile, 'utf8').trim() : null),
  };
}

/** Writes a snapshot of `store` to `file` (0600); returns the row counts. */
async function snapshotToFile(ctx: OperateContext, store: Store, file: string) {
  const out = createWriteStream(file, { mode: 0o600, flags: 'wx' });
  const write = (line: string) =>
    new Promise<void>((resolve, reject) => {
      if (out.write(`${line}\n`)) resolve();
      else out.once('drain', resolve).once('error', reject);
    });
  const counts = await writeSnapshot(
    store.db,
    {
      dialect: store.dialect,
      postgresSchema: store.schema,
      secrets: secretsOf(ctx.config),
      nowIso: ctx.nowIso(),
    },
    write,
  );
  await new Promise<void>((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
  return counts;
}

function linesOf(file: string): AsyncIterable<string> {
  return createInterface({
    input: createReadStream(file, { encoding: 'utf8' }),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
}

function total(counts: Record<string, number>): number {
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

export async function backup(ctx: OperateContext, file: string): Promise<number> {
  if (existsSync(file)) throw new SnapshotError(`${file} exists: a backup never overwrites a file`);
  const store = await ctx.openStore();
  try {
    await migrateToLatest(store.db, store.schema);
    const counts = await snapshotToFile(ctx, store, file);
    ctx.print(
      `backup written to ${file}: ${total(counts)} rows of ${Object.keys(counts).length} tables, in one snapshot; it holds the deployment's secrets (keep it like them)`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

/** The backup's secrets into DATA_DIR (the target store was empty: nothing depended on the files there). */
function restoreSecrets(ctx: OperateContext, header: SnapshotHeader): void {
  const { secrets } = header;
  const put = (name: string, value: string) =>
    writeFileSync(join(ctx.config.dataDir, name), value, { mode: 0o600 });
  if (/^[0-9a-f]{64}$/.test(secrets.jwtSecret)) {
    if (process.env.JWT_SECRET && process.env.JWT_SECRET !== secrets.jwtSecret)
      ctx.print(
        'note: JWT_SECRET in the environment is not the backup’s; sessions of the backup verify only with the backup’s key',
      );
    put('jwt-secret', secrets.jwtSecret);
  } else if (process.env.JWT_SECRET !== secrets.jwtSecret) {
    ctx.print(
      'note: the backup’s JWT key came from JWT_SECRET; set the same JWT_SECRET for its sessions to stay valid',
    );
  }
  put('address-secret', secrets.addressSecret);
  if (secrets.treasuryMnemonic !== null) {
    if (process.env.TREASURY_MNEMONIC && process.env.TREASURY_MNEMONIC !== secrets.treasuryMnemonic)
      ctx.print(
        'note: TREASURY_MNEMONIC in the environment is not the backup’s: the evm rail will refuse to start',
      );
    put('treasury-mnemonic', secrets.treasuryMnemonic);
  }
}

export async function restore(ctx: OperateContext, file: string): Promise<number> {
  if (!existsSync(file)) throw new SnapshotError(`${file} does not exist`);
  const store = await ctx.openStore();
  try {
    const { header, counts } = await loadSnapshot(store.db, { postgresSchema: store.schema }, linesOf(file));
    restoreSecrets(ctx, header);
    const report = await verifyLedger(store);
    if (!report.ok)
      throw new SnapshotError(`restored, but the ledger does not verify: ${report.problems.join('; ')}`);
    ctx.print(`restored ${total(counts)} rows from ${file} (taken ${header.createdAt}); ledger OK`);
    await noteBoundedSettings(ctx, store);
    return 0;
  } finally {
    await store.close();
  }
}

/**
 * The bounded treasury's settings live in the environment, not the store (docs/operators/backups.md): a store
 * holding the owners' delegation, opened without TREASURY_MODE=bounded, would run hot — nothing is lost (the
 * account stays the owners'), but the float is no longer refilled. Said at once rather than found later.
 */
async function noteBoundedSettings(ctx: OperateContext, store: Store): Promise<void> {
  if (ctx.config.evm?.bounded) return;
  const active = await store.db
    .selectFrom('treasury_delegations')
    .select(['account'])
    .where('status', '=', 'active')
    .executeTakeFirst();
  if (active === undefined) return;
  ctx.print(
    `note: this store holds the owners' delegation of the bounded treasury (account ${active.account}); start the service with TREASURY_MODE=bounded and the same TREASURY_* settings and framework addresses it ran with, or it runs hot and never refills its float`,
  );
}

/** Per table: row count and a digest of its rows (order-free), from snapshot lines. */
async function digests(lines: AsyncIterable<string>): Promise<Map<string, { rows: number; digest: string }>> {
  const byTable = new Map<string, { rows: number; hashes: string[] }>();
  let current: { table: string; columns: string[] } | null = null;
  for await (const text of lines) {
    const line = decodeLine(text);
    if ('table' in line) {
      current = line;
      byTable.set(line.table, { rows: 0, hashes: [] });
    } else if ('rows' in line && current !== null) {
      const entry = byTable.get(current.table)!;
      const order = [...current.columns.keys()].sort((a, b) =>
        current!.columns[a]!.localeCompare(current!.columns[b]!),
      );
      for (const row of line.rows) {
        const canonical = JSON.stringify(
          order.map((i) => [current!.columns[i], String(row[i] ?? '\u0000null')]),
        );
        entry.hashes.push(createHash('sha256').update(canonical).digest('hex'));
        entry.rows += 1;
      }
    }
  }
  const result = new Map<string, { rows: number; digest: string }>();
  for (const [table, { rows, hashes }] of byTable) {
    result.set(table, { rows, digest: createHash('sha256').update(hashes.sort().join('')).digest('hex') });
  }
  return result;
}

async function* arrayLines(lines: string[]) {
  yield* lines;
}

/**
 * The embedded deployment into an empty PostgreSQL schema: one snapshot, loaded, then every table compared row
 * by row (a digest of its rows) and the ledger verified on the new side. Stop the service first: what is written
 * after the snapshot is not moved.
 */
export async function move(ctx: OperateContext, to: { databaseUrl: string }): Promise<number> {
  const folder = mkdtempSync(join(tmpdir(), 'agent-wallet-move-'));
  const file = join(folder, 'snapshot.jsonl');
  try {
    const source = await ctx.openStore();
    try {
      if (source.dialect !== 'sqlite')
        throw new SnapshotError(
          'move carries the embedded (SQLite) store into PostgreSQL; unset DATABASE_URL',
        );
      await migrateToLatest(source.db, source.schema);
      await snapshotToFile(ctx, source, file);
    } finally {
      await source.close();
    }
    const target = await ctx.openStore(to);
    try {
      await loadSnapshot(target.db, { postgresSchema: target.schema }, linesOf(file));
      const moved: string[] = [];
      await writeSnapshot(
        target.db,
        {
          dialect: target.dialect,
          postgresSchema: target.schema,
          secrets: secretsOf(ctx.config),
          nowIso: ctx.nowIso(),
        },
        async (line) => void moved.push(line),
      );
      const [before, after] = await Promise.all([digests(linesOf(file)), digests(arrayLines(moved))]);
      const differences = [...new Set([...before.keys(), ...after.keys()])].filter(
        (t) => before.get(t)?.digest !== after.get(t)?.digest || before.get(t)?.rows !== after.get(t)?.rows,
      );
      if (differences.length > 0)
        throw new SnapshotError(`moved, but these tables differ: ${differences.join(', ')}`);
      const report = await verifyLedger(target);
      if (!report.ok)
        throw new SnapshotError(`moved, but the ledger does not verify: ${report.problems.join('; ')}`);
      await noteBoundedSettings(ctx, target);
      const rows = [...after.values()].reduce((a, t) => a + t.rows, 0);
      ctx.print(
        `moved ${rows} rows of ${after.size} tables to PostgreSQL, schema "${target.schema}"; every table matches row by row and the ledger verifies. Start the service with DATABASE_URL set and DATABASE_SCHEMA=${target.schema} (and the same DATA_DIR: it holds the secrets)`,
      );
      return 0;
    } finally {
      await target.close();
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
