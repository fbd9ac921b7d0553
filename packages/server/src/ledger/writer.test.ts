// The ledger writer on both stores: group commit batches, one failing operation rolls back only itself,
// per-wallet serialisation, bounded queue, and a clean close.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { storeTargets } from '../../test/support/harness.ts';
import { POSTGRES_URL, uniqueName } from '../../test/support/services.ts';
import { accountIds, assertBalanced, InsufficientFundsError } from '../domain/money/accounts.ts';
import { openStore, type Store } from '../store/db.ts';
import { migrateToLatest } from '../store/migrate.ts';
import { postTransfer } from './ledger.ts';
import { verifyLedger } from './verify.ts';
import {
  type CommandExecutor,
  createLedgerWriter,
  type LedgerWriter,
  type Settled,
  takeBatch,
  type WriterOptions,
} from './writer.ts';

for (const target of await storeTargets()) {
  describe(`ledger writer (${target.name})`, { skip: target.skip }, () => {
    let store: Store;
    let writer: LedgerWriter;
    let dataDir: string;
    const schema = uniqueName('writer');
    const external = accountIds.external('sandbox');

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'writer-test-'));
      store = await openStore({
        databaseUrl: target.name === 'postgres' ? POSTGRES_URL : undefined,
        dataDir,
        postgresSchema: target.name === 'postgres' ? schema : undefined,
        postgresPoolSizeMax: 5,
        sqliteBusyTimeoutMs: 5_000,
        connectTimeoutMs: 5_000,
        // Generous: the suite migrates its schema while CI's first minutes build the dashboard and run vitest's
        // workers on the same two cores (one migration statement once passed 5 s there); nothing here tests it.
        statementTimeoutMs: 30_000,
        onConnectionError: () => undefined,
      });
      await migrateToLatest(store.db, store.schema);
      await sql`insert into users values ('usr_w', 'w@example.test', 'x', 0, 0)`.execute(store.db);
      for (const id of ['wal_a', 'wal_b']) {
        await sql`insert into wallets (id, user_id, kind, label, address, version, created_at_ms, updated_at_ms)
          values (${id}, 'usr_w', 'agent', 'w', ${`0x${id.padEnd(40, '0')}`}, 0, 0, 0)`.execute(store.db);
        await sql`insert into accounts values (${`${id}:available`}, ${id}, 'available', 0, 0)`.execute(
          store.db,
        );
      }
      writer = writerWith({
        batchSizeMax: 64,
        queueLengthMax: 1_000,
        batchesInFlightMax: 2,
        conflictAttemptsMax: 3,
      });
    });

    /** A writer on this suite's store, in the mode its dialect uses; the limits are the caller's. */
    const writerWith = <C, R>(
      limits: Pick<
        WriterOptions<C, R>,
        'batchSizeMax' | 'queueLengthMax' | 'batchesInFlightMax' | 'conflictAttemptsMax'
      >,
      executeCommands: CommandExecutor<C, R> = () =>
        Promise.reject(new Error('this suite submits no commands')),
    ) =>
      createLedgerWriter(store, {
        mode: store.dialect === 'sqlite' ? 'batch' : 'concurrent',
        ...limits,
        onBatch: () => undefined,
        executeCommands,
      });

    after(async () => {
      await writer.close();
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    const move =
      (from: string, to: string, amountMicros: bigint) =>
      (trx: Parameters<Parameters<LedgerWriter['run']>[0]>[0]) =>
        postTransfer(trx, {
          kind: 'test',
          referenceId: null,
          nowMs: 0,
          legs: [
            { accountId: from, amountMicros: -amountMicros },
            { accountId: to, amountMicros },
          ],
        });

    const balanceOf = async (id: string) =>
      (
        await store.db
          .selectFrom('accounts')
          .select('balance_micros')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).balance_micros;

    test('an unbalanced transfer is refused before anything is written', () => {
      assert.throws(
        () =>
          assertBalanced([
            { accountId: 'a', amountMicros: -1n },
            { accountId: 'b', amountMicros: 2n },
          ]),
        /sum to 1/,
      );
      assert.throws(() => assertBalanced([{ accountId: 'a', amountMicros: 1n }]), /2\.\.8 legs/);
      assert.throws(
        () =>
          assertBalanced([
            { accountId: 'a', amountMicros: -1n },
            { accountId: 'a', amountMicros: 1n },
          ]),
        /twice/,
      );
      assert.throws(
        () =>
          assertBalanced([
            { accountId: 'a', amountMicros: 0n },
            { accountId: 'b', amountMicros: 0n },
          ]),
        /zero leg/,
      );
    });

    test('many operations at once: each succeeds or fails alone, and overdraft is refused by the database', async () => {
      await writer.run(move(external, 'wal_a:available', 100n));
      const results = await Promise.allSettled(
        Array.from({ length: 150 }, () =>
          writer.run(move('wal_a:available', 'wal_b:available', 1n), { wallets: ['wal_a'] }),
        ),
      );
      const ok = results.filter((r) => r.status === 'fulfilled').length;
      const refused = results.filter(
        (r) => r.status === 'rejected' && r.reason instanceof InsufficientFundsError,
      ).length;
      assert.equal(ok, 100);
      assert.equal(refused, 50);
      assert.equal(await balanceOf('wal_a:available'), 0n);
      assert.equal(await balanceOf('wal_b:available'), 100n);
      assert.deepEqual((await verifyLedger(store)).problems, []);
    });

    test('a failing operation rolls back only its own writes', async () => {
      const before = await balanceOf('wal_b:available');
      const [good, bad] = await Promise.allSettled([
        writer.run(move('wal_b:available', 'wal_a:available', 5n)),
        writer.run(async (trx) => {
          await move('wal_b:available', 'wal_a:available', 7n)(trx);
          throw new Error('boom after a write');
        }),
      ]);
      assert.equal(good.status, 'fulfilled');
      assert.equal(bad.status, 'rejected');
      assert.equal(await balanceOf('wal_b:available'), before - 5n);
      assert.deepEqual((await verifyLedger(store)).problems, []);
    });

    test('in a locked batch, a failing operation rolls back only its own writes', async () => {
      const before = await balanceOf('wal_b:available');
      const locks = { wallets: ['wal_a', 'wal_b'] };
      const results = await Promise.allSettled([
        writer.run(move('wal_b:available', 'wal_a:available', 2n), locks),
        writer.run(async (trx) => {
          await move('wal_b:available', 'wal_a:available', 3n)(trx);
          throw new Error('boom in a batch');
        }, locks),
        writer.run(move('wal_b:available', 'wal_a:available', 4n), locks),
      ]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      assert.equal(await balanceOf('wal_b:available'), before - 6n);
      assert.deepEqual((await verifyLedger(store)).problems, []);
    });

    test('transfers both ways between two wallets, many at once: no deadlock, nothing lost', async () => {
      const a = await balanceOf('wal_a:available');
      const b = await balanceOf('wal_b:available');
      const results = await Promise.allSettled(
        Array.from({ length: 200 }, (_, i) =>
          i % 2 === 0
            ? writer.run(move('wal_a:available', 'wal_b:available', 1n), { wallets: ['wal_a', 'wal_b'] })
            : writer.run(move('wal_b:available', 'wal_a:available', 1n), { wallets: ['wal_b', 'wal_a'] }),
        ),
      );
      assert.deepEqual(
        results.filter((r) => r.status === 'rejected').map((r) => String(r.reason)),
        [],
      );
      assert.equal((await balanceOf('wal_a:available')) + (await balanceOf('wal_b:available')), a + b);
      assert.deepEqual((await verifyLedger(store)).problems, []);
    });

    test('commands are decided together; one that throws is re-run alone and fails alone', async () => {
      type Move = { from: string; to: string; amountMicros: bigint; poison: boolean };
      const seen: number[] = [];
      // Decides every command of the batch in one call, as the payment executor does.
      const executor = async (
        trx: Parameters<Parameters<LedgerWriter['run']>[0]>[0],
        commands: readonly Move[],
      ) => {
        seen.push(commands.length);
        const outcomes: Settled<bigint>[] = [];
        for (const command of commands) {
          await move(command.from, command.to, command.amountMicros)(trx);
          if (command.poison) throw new Error('poisoned command');
          outcomes.push({ ok: true, value: command.amountMicros });
        }
        return outcomes;
      };
      const commanded = writerWith(
        { batchSizeMax: 64, queueLengthMax: 100, batchesInFlightMax: 1, conflictAttemptsMax: 3 },
        executor,
      );
      const before = await balanceOf('wal_b:available');
      const locks = { wallets: ['wal_a', 'wal_b'] };
      const send = (amountMicros: bigint, poison = false) =>
        commanded.submit({ from: 'wal_b:available', to: 'wal_a:available', amountMicros, poison }, locks);
      const results = await Promise.allSettled([send(1n), send(2n, true), send(3n)]);
      await commanded.close();
      assert.deepEqual(
        results.map((r) => (r.status === 'fulfilled' ? r.value : String(r.reason))),
        [1n, 'Error: poisoned command', 3n],
      );
      assert.equal(seen[0], 3, 'the three commands were first decided in one call');
      assert.equal(await balanceOf('wal_b:available'), before - 4n, 'only the poisoned command left nothing');
      assert.deepEqual((await verifyLedger(store)).problems, []);
    });

    test('an operation alone in its transaction that fails leaves nothing behind', async () => {
      const before = await balanceOf('wal_b:available');
      await assert.rejects(
        writer.run(async (trx) => {
          await move('wal_b:available', 'wal_a:available', 1n)(trx);
          throw new Error('boom alone');
        }),
        /boom alone/,
      );
      assert.equal(await balanceOf('wal_b:available'), before);
      await writer.run(move('wal_b:available', 'wal_a:available', 1n));
      assert.equal(await balanceOf('wal_b:available'), before - 1n, 'the writer still works afterwards');
      assert.deepEqual((await verifyLedger(store)).problems, []);
    });

    test('a full queue refuses with 503 instead of growing without bound', async () => {
      const small = writerWith({
        batchSizeMax: 2,
        queueLengthMax: 3,
        batchesInFlightMax: 1,
        conflictAttemptsMax: 1,
      });
      const results = await Promise.allSettled(Array.from({ length: 10 }, () => small.run(async () => 1)));
      const refused = results.filter((r) => r.status === 'rejected');
      assert.ok(refused.length >= 1, 'some were refused');
      assert.ok(
        refused.every(
          (r) => r.status === 'rejected' && (r.reason as { code?: string }).code === 'SERVICE_UNAVAILABLE',
        ),
      );
      await small.close();
      await assert.rejects(
        small.run(async () => 1),
        /shutting down/,
      );
    });
  });
}

describe('takeBatch', () => {
  const op = (name: string, ...keys: string[]) => ({ name, keys });
  test('takes operations in order, skipping busy wallets and what queues behind them', () => {
    const queue = [op('1', 'a'), op('2', 'b'), op('3', 'c', 'b'), op('4', 'c'), op('5', 'd')];
    const { batch, rest } = takeBatch(queue, new Set(['b']), 10);
    assert.deepEqual(
      batch.map((o) => o.name),
      ['1', '5'],
    );
    assert.deepEqual(
      rest.map((o) => o.name),
      ['2', '3', '4'],
    );
  });
  test('several operations on one wallet join one batch, up to the size limit', () => {
    const queue = [op('1', 'a'), op('2', 'a'), op('3', 'a')];
    const { batch, rest } = takeBatch(queue, new Set(), 2);
    assert.deepEqual(
      batch.map((o) => o.name),
      ['1', '2'],
    );
    assert.deepEqual(
      rest.map((o) => o.name),
      ['3'],
    );
  });
});
