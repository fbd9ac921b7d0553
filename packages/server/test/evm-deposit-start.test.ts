// Where the deposit watcher starts on a new evm database (outside finding 1: a deposit made between the first
// start and the watcher's first round was never read). The start is fixed when the rail opens, before the first
// address exists; a new database refuses to start while the chain cannot be read; verify-ledger --chain finds a
// transfer the watcher skipped whatever its cursor says; CHAIN_START_BLOCK below the recorded start recovers it.
import assert from 'node:assert/strict';
import { createServer as createNetServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Address } from 'viem';
import { createChainClient } from '../src/chain/client.ts';
import { reconcileChain } from '../src/chain/reconcile/reconcile.ts';
import {
  CHAIN_HISTORY_START_SETTING,
  DEPOSITS_START_SETTING,
  depositCursorName,
} from '../src/chain/setup.ts';
import type { Config } from '../src/config.ts';
import { createServer, type RunningServer } from '../src/server.ts';
import { anvilAvailable, mine } from './support/anvil.ts';
import { type EvmWorld, evmEnv, startEvmWorld } from './support/evm.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { signupUser } from './support/http.ts';

const CONFIRMATIONS = 3;
const probe = await anvilAvailable();

/** A loopback port nothing listens on: the chain is "down". */
async function closedPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function settingOf(h: Harness, key: string): Promise<string | undefined> {
  const row = await h.services.store.db
    .selectFrom('service_settings')
    .select('value')
    .where('key', '=', key)
    .executeTakeFirst();
  return row?.value;
}

for (const target of await storeTargets()) {
  describe(`evm deposit start on ${target.name}`, {
    skip: probe.available ? target.skip : probe.skip,
  }, () => {
    let world: EvmWorld;
    const opened: Array<Harness | RunningServer> = [];
    /** No CHAIN_START_BLOCK: the default every operator meets. */
    const env = (extra: Record<string, string> = {}) =>
      evmEnv(world, { CONFIRMATIONS: String(CONFIRMATIONS), CHAIN_START_BLOCK: '', ...extra });
    const harness = async (label: string, extra: Record<string, string> = {}) => {
      const h = await startHarness(target.name, label, { env: env(extra) });
      opened.push(h);
      return h;
    };
    /** The same database opened again with another configuration. */
    const reopen = async (h: Harness, config: Config) => {
      const server = await createServer(config, {
        clock: h.clock,
        logLevel: false,
        backgroundIntervalMs: null,
        ...(h.postgresSchema === undefined ? {} : { postgresSchema: h.postgresSchema }),
      });
      opened.push(server);
      return server;
    };
    const withStart = (h: Harness, startBlock: bigint | undefined): Config => ({
      ...h.config,
      evm: { ...h.config.evm!, startBlock },
    });
    const head = () => world.usdc.publicClient.getBlockNumber({ cacheTime: 0 });

    before(async () => {
      world = await startEvmWorld();
      await mine(world.anvil, 40);
    });
    after(async () => {
      for (const o of opened.reverse()) await o.close().catch(() => undefined);
      await world?.anvil.stop();
    });

    test('a deposit made right after the first start, before the watcher’s first round, is credited', async () => {
      const headAtStart = await head();
      const h = await harness('deposit-start');
      assert.equal(await settingOf(h, DEPOSITS_START_SETTING), String(headAtStart));
      assert.equal(await settingOf(h, CHAIN_HISTORY_START_SETTING), String(headAtStart));
      const user = await signupUser(h.app);
      const master = (await user.api.get('/api/v1/wallet')).body.data;
      await world.usdc.mint(master.address as Address, 50_000_000n);
      await mine(world.anvil, 1 + CONFIRMATIONS);
      await h.services.chain!.duties.watchDeposits();
      const wallet = (await user.api.get('/api/v1/wallet')).body.data;
      assert.equal(wallet.balance, '50.000000', 'the first deposit is not lost');
    });

    test('a new database refuses to start while the chain cannot be read, and starts once it can', async () => {
      const down = `http://127.0.0.1:${await closedPort()}`;
      await assert.rejects(
        harness('deposit-start-down', { EVM_RPC_URL: down }),
        /the chain at EVM_RPC_URL cannot be read: a new evm database fixes the block its deposits start at/,
      );
      const h = await harness('deposit-start-up');
      assert.ok((await settingOf(h, DEPOSITS_START_SETTING)) !== undefined);
    });

    test('an evm database with wallets and no recorded start refuses without CHAIN_START_BLOCK', async () => {
      const h = await harness('deposit-start-missing');
      await signupUser(h.app);
      const db = h.services.store.db;
      await db.deleteFrom('chain_cursors').execute();
      await db.deleteFrom('service_settings').where('key', '=', DEPOSITS_START_SETTING).execute();
      await assert.rejects(
        reopen(h, withStart(h, undefined)),
        /never recorded where it starts: set CHAIN_START_BLOCK/,
      );
      const server = await reopen(h, withStart(h, 5n));
      assert.ok(server.services.chain !== null);
      const cursor = await db
        .selectFrom('chain_cursors')
        .select('block_number')
        .where('name', '=', depositCursorName(world.anvil.chainId))
        .executeTakeFirstOrThrow();
      assert.equal(BigInt(cursor.block_number), 4n, 'the watcher starts at CHAIN_START_BLOCK');
    });

    test('verify-ledger --chain finds a deposit the watcher skipped; CHAIN_START_BLOCK below the start recovers it once', async () => {
      const h = await harness('deposit-start-skipped');
      const user = await signupUser(h.app);
      const master = (await user.api.get('/api/v1/wallet')).body.data;
      const deposited = await head();
      await world.usdc.mint(master.address as Address, 7_000_000n);
      await mine(world.anvil, 1 + CONFIRMATIONS);
      // A database written by an earlier release: its watcher started lazily, after the deposit, and it never
      // recorded where its history on chain begins.
      const late = String((await head()) + 1n);
      const db = h.services.store.db;
      await db
        .updateTable('chain_cursors')
        .set({ block_number: BigInt(late) - 1n })
        .execute();
      await db
        .updateTable('service_settings')
        .set({ value: late })
        .where('key', '=', DEPOSITS_START_SETTING)
        .execute();
      await db.deleteFrom('service_settings').where('key', '=', CHAIN_HISTORY_START_SETTING).execute();
      await h.services.chain!.duties.watchDeposits();
      assert.equal((await user.api.get('/api/v1/wallet')).body.data.balance, '0.000000');
      const config = withStart(h, undefined).evm!;
      const treasury = world.treasury.toLowerCase();
      const before = await reconcileChain(db, createChainClient(config), config, treasury);
      assert.equal(before.ok, false);
      assert.ok(
        before.problems.some((p) => /7\.000000 USDC .* no deposit record matches it/.test(p)),
        before.problems.join('\n'),
      );

      const recovered = await reopen(h, withStart(h, deposited));
      await recovered.services.chain!.duties.watchDeposits();
      await recovered.services.chain!.duties.watchDeposits();
      assert.equal((await user.api.get('/api/v1/wallet')).body.data.balance, '7.000000');
      assert.equal(await settingOf(h, CHAIN_HISTORY_START_SETTING), String(deposited));
      // The same setting again does not rewind again, and nothing is credited twice.
      const again = await reopen(h, withStart(h, deposited));
      await again.services.chain!.duties.watchDeposits();
      const deposits = (await user.api.get('/api/v1/wallet/deposits')).body.data;
      assert.equal(deposits.total, 1);
      assert.equal((await user.api.get('/api/v1/wallet')).body.data.balance, '7.000000');
      const after = await reconcileChain(db, createChainClient(config), config, treasury);
      assert.deepEqual(after.problems, []);
    });
  });
}
