// Switching a hot deployment to TREASURY_MODE=bounded with nothing lost, on anvil with the MetaMask Delegation
// Framework's npm bytecode, on both stores: a hot service takes deposits, pays and withdraws; the owners' account is
// prepared and the delegation granted while it runs; at the switch two payouts are broadcast but not mined, a
// sweep into the hot treasury likewise, and a withdrawal is still queued. Restarted bounded on the same store and
// DATA_DIR, the service confirms all of them, moves the hot treasury above TREASURY_FLOAT_MAX into the owners'
// account through its outbox (kind float_return), and verify-ledger --chain is clean before and after with every
// balance unchanged. Then a payout is paid from the float, a withdrawal above the allowance waits for the owners
// and verify-ledger --chain counts it, and backup, restore and move carry the bounded treasury to the other store.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Address, Hex } from 'viem';
import { boundedAccount } from '../src/chain/bounded/bounded.ts';
import { grantDelegation, prepareDelegation, switchPlan } from '../src/chain/bounded/bounded-setup.ts';
import { reconcileChain } from '../src/chain/reconcile/reconcile.ts';
import { ManualClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { backup, move, restore } from '../src/operate.ts';
import { createServer } from '../src/server.ts';
import { openStore } from '../src/store/db.ts';
import { createKey, tool, toolOk } from './support/agent.ts';
import { anvilAvailable, mine, rpc } from './support/anvil.ts';
import { deployFrameworkFor, type Framework, owners } from './support/bounded.ts';
import { type EvmWorld, evmEnv, startEvmWorld } from './support/evm.ts';
import { assertLedgerOk } from './support/foundation.ts';
import { GENEROUS_RATE_LIMITS, type Harness, startHarness, storeTargets } from './support/harness.ts';
import { as, signupUser, type TestUser } from './support/http.ts';
import { POSTGRES_URL, probeService, uniqueName } from './support/services.ts';

process.env.DO_NOT_TRACK = '1';
const probe = await anvilAvailable();
const pg = await probeService('PostgreSQL', POSTGRES_URL);
const USDC = 1_000_000n;
const FLOAT_MAX = 40n * USDC;
const OUTSIDE = '0x00000000000000000000000000000000000c0ffe' as Address;
const RECIPIENT = `0x${'e9'.repeat(20)}` as Address;

/** A service on an existing store (the harness's, or a copy), in the environment given. */
async function serviceOn(
  base: Harness,
  env: Record<string, string>,
  where: { dataDir: string; postgresSchema: string | undefined; clock: ManualClock },
): Promise<Harness> {
  const config = loadConfig({ ...env, DATA_DIR: where.dataDir });
  const server = await createServer(config, {
    clock: where.clock,
    logLevel: false,
    backgroundIntervalMs: null,
    ...(where.postgresSchema === undefined ? {} : { postgresSchema: where.postgresSchema }),
  });
  await server.app.ready();
  return {
    ...base,
    app: server.app,
    services: server.services,
    config,
    server,
    clock: where.clock,
    dataDir: where.dataDir,
    postgresSchema: where.postgresSchema,
    store: where.postgresSchema === undefined ? 'sqlite' : 'postgres',
    async close() {
      await server.close();
    },
  };
}

/** What the operator commands (backup, restore, move) are handed by the CLI, on this harness's store. */
function operatorContext(h: Pick<Harness, 'config' | 'postgresSchema'>, databaseUrl: string | undefined) {
  return {
    config: h.config,
    openStore: (target?: { databaseUrl: string }) =>
      openStore({
        databaseUrl: target?.databaseUrl ?? databaseUrl,
        dataDir: h.config.dataDir,
        postgresSchema: h.postgresSchema,
        postgresPoolSizeMax: 2,
        sqliteBusyTimeoutMs: 5_000,
        connectTimeoutMs: 5_000,
        statementTimeoutMs: 0,
        transactionPooling: false,
        onConnectionError: () => undefined,
      }),
    print: () => undefined,
    nowIso: () => new Date().toISOString(),
  };
}

for (const target of await storeTargets()) {
  describe(`switching hot to bounded on ${target.name}`, {
    skip: probe.available ? target.skip : probe.skip,
  }, () => {
    let world: EvmWorld;
    let framework: Framework;
    let h: Harness;
    let hotEnv: Record<string, string>;
    let boundedEnv: Record<string, string>;
    let owner: TestUser;
    let agentWalletId: string;
    let agentKey: string;
    let account: Address;
    /** The withdrawal above the allowance, waiting for the owners: its id and what they sign. */
    let awaiting: { id: string; typedData: Parameters<(typeof owners)[number]['signTypedData']>[0] };
    const folders: string[] = [];
    const rail = () => h.services.chain!.rail;
    const usdcOf = (address: Address | string) => world.usdc.balanceOf(address as Address);
    const rounds = async (n: number) => {
      for (let i = 0; i < n; i += 1) {
        await h.services.chain!.duties.send();
        await mine(world.anvil, 1);
      }
    };
    const reconcile = (withAccount: boolean) =>
      reconcileChain(
        h.services.store.db,
        rail().client,
        rail().config,
        rail().keys.treasury.address.toLowerCase(),
        withAccount ? account : null,
      );
    const pay = async (amount: string) =>
      toolOk(await tool(h, agentKey, 'send_payment', { toAddress: OUTSIDE, amount }), 'send_payment');
    const withdraw = (amount: string) =>
      owner.api.post('/api/v1/wallet/withdrawals', { toAddress: RECIPIENT, amount });
    const balances = async () => ({
      master: (await owner.api.get('/api/v1/wallet')).body.data.balance as string,
      agent: (await owner.api.get(`/api/v1/agent-wallets/${agentWalletId}`)).body.data.balance as string,
    });
    const ledgerTransactions = async () =>
      (await h.services.store.db.selectFrom('ledger_transactions').select('id').execute()).length;

    before(async () => {
      world = await startEvmWorld();
      framework = await deployFrameworkFor(world);
      hotEnv = evmEnv(world, {
        CONFIRMATIONS: '1',
        WITHDRAWAL_ADDRESS_DELAY_SECONDS: '0',
        RATE_LIMITS: GENEROUS_RATE_LIMITS,
        DB_POOL_MAX: '10',
        ...(target.name === 'postgres' ? { DATABASE_URL: POSTGRES_URL } : {}),
      });
      boundedEnv = {
        ...hotEnv,
        ...framework.env,
        TREASURY_MODE: 'bounded',
        TREASURY_ALLOWANCE: '100',
        TREASURY_FLOAT_MAX: '40',
        TREASURY_OWNERS: owners.map((o) => o.address).join(','),
        TREASURY_THRESHOLD: '2',
      };
      h = await startHarness(target.name, 'treasury_switch', { env: hotEnv });
      folders.push(h.dataDir);
    });
    after(async () => {
      await h?.close();
      await world?.anvil.stop();
      for (const path of folders) rmSync(path, { recursive: true, force: true });
    });

    test('a hot deployment at work: deposits swept to the key, a payment and a withdrawal paid; the chain agrees', async () => {
      assert.equal(rail().config.treasuryMode, 'hot');
      owner = await signupUser(h.app);
      const master = (await owner.api.get('/api/v1/wallet')).body.data;
      await world.usdc.mint(master.address, 500n * USDC);
      await mine(world.anvil, 1);
      await h.services.chain!.duties.watchDeposits();
      await rounds(3);
      assert.equal(await usdcOf(world.treasury), 500n * USDC, 'swept into the hot treasury');
      const wallet = await owner.api.post('/api/v1/agent-wallets', { label: 'agent' });
      agentWalletId = wallet.body.data.id;
      await owner.api.post(`/api/v1/agent-wallets/${agentWalletId}/fund`, { amount: '100' });
      agentKey = (await createKey(owner, agentWalletId, { label: 'k' })).key;
      assert.equal((await pay('10')).status, 'processing');
      const added = await owner.api.post('/api/v1/wallet/withdrawal-addresses', {
        address: RECIPIENT,
        label: 'cold',
      });
      assert.equal(added.status, 201, added.raw);
      assert.equal((await withdraw('20')).status, 201);
      await rounds(3);
      assert.equal(await usdcOf(OUTSIDE), 10n * USDC);
      assert.equal(await usdcOf(RECIPIENT), 20n * USDC);
      const proof = await reconcile(false);
      assert.ok(proof.ok, proof.problems.join('; '));
      assert.equal(proof.floatMicros, 470n * USDC);
      assert.equal(proof.accountMicros, null, 'hot mode has no account');
      await assertLedgerOk(h);
    });

    test('the owners prepare and grant while the service runs hot; the grant says what the switch moves', async () => {
      const config = loadConfig({ ...boundedEnv, DATA_DIR: h.dataDir }).evm!;
      const deps = { db: h.services.store.db, client: rail().client, config, keys: rail().keys };
      const prepared = await prepareDelegation(deps);
      account = prepared.delegation.delegator;
      assert.equal(account, boundedAccount(config.bounded!, rail().keys));
      const signatures = await Promise.all(
        [owners[0]!, owners[1]!].map(async (o) => ({
          signer: o.address,
          signature: await o.signTypedData(prepared.typedData),
        })),
      );
      await grantDelegation(deps, { delegation: prepared.delegation, signatures }, h.clock.nowMs());
      assert.deepEqual(await switchPlan(deps), {
        floatMicros: 470n * USDC,
        owedMicros: 0n,
        returnMicros: 430n * USDC,
      });
      await rounds(2);
      assert.equal(await usdcOf(account), 0n, 'a hot service never moves anything to the account');
    });

    test('switched with payouts, a sweep and a withdrawal in flight: all confirm, the treasury moves into the account, nothing else changes', async () => {
      const master = (await owner.api.get('/api/v1/wallet')).body.data;
      await world.usdc.mint(master.address, 30n * USDC);
      await mine(world.anvil, 1);
      await h.services.chain!.duties.watchDeposits();
      // From here the chain mines nothing until the bounded service runs.
      await rpc(world.anvil, 'evm_setAutomine', [false]);
      assert.equal((await pay('7')).status, 'processing');
      assert.equal((await withdraw('15')).status, 201);
      await h.services.chain!.duties.send(); // both payouts broadcast; the new deposit's sweep queued
      await h.services.chain!.duties.send(); // the sweep broadcast
      assert.equal((await withdraw('12')).status, 201); // queued only
      const statuses = await h.services.store.db
        .selectFrom('chain_outbox')
        .select(['kind', 'status', 'amount_micros'])
        .where('status', 'in', ['queued', 'sent'])
        .orderBy('amount_micros')
        .execute();
      assert.deepEqual(
        statuses.map((r) => `${r.kind} ${r.status} ${r.amount_micros / USDC}`),
        ['payout sent 7', 'payout queued 12', 'payout sent 15', 'sweep sent 30'],
      );
      const before = await balances();
      const hotProof = await reconcile(false);
      assert.ok(hotProof.ok, hotProof.problems.join('; '));
      assert.equal(hotProof.inFlightMicros, 34n * USDC, 'the three payouts not yet mined are owed');
      const transactionsBefore = await ledgerTransactions();

      await h.server.close();
      h = await serviceOn(h, boundedEnv, {
        dataDir: h.dataDir,
        postgresSchema: h.postgresSchema,
        clock: h.clock,
      });
      owner.api = as(h.app, owner.token);
      assert.equal(rail().config.treasuryMode, 'bounded');
      await rpc(world.anvil, 'evm_setAutomine', [true]);
      await mine(world.anvil, 1);
      await rounds(8);

      assert.equal(await usdcOf(OUTSIDE), 17n * USDC, 'the payout in flight at the switch was paid once');
      assert.equal(await usdcOf(RECIPIENT), 47n * USDC, 'both withdrawals too');
      assert.equal(await usdcOf(master.address), 0n, 'the sweep in flight landed');
      // 470 + 30 swept − 34 paid = 466: the float keeps its ceiling, the account the rest.
      assert.equal(await usdcOf(rail().keys.treasury.address), FLOAT_MAX);
      assert.equal(await usdcOf(account), 426n * USDC);
      const returns = await h.services.store.db
        .selectFrom('chain_outbox')
        .select(['status', 'amount_micros', 'to_address', 'wallet_id', 'transaction_id'])
        .where('kind', '=', 'float_return')
        .execute();
      assert.ok(returns.length >= 1);
      assert.ok(returns.every((r) => r.status === 'completed' && r.to_address === account.toLowerCase()));
      assert.ok(
        returns.every((r) => r.wallet_id === null && r.transaction_id === null),
        'nobody’s money',
      );
      assert.equal(
        returns.reduce((a, r) => a + r.amount_micros, 0n),
        426n * USDC,
      );
      assert.deepEqual(await balances(), before, 'every balance is what it was');
      assert.equal(await ledgerTransactions(), transactionsBefore, 'the switch moves no wallet’s money');
      const states = await h.services.store.db
        .selectFrom('transactions')
        .select('status')
        .where('status', '=', 'processing')
        .execute();
      assert.equal(states.length, 0, 'nothing left in flight');
      await assertLedgerOk(h);
      const proof = await reconcile(true);
      assert.ok(proof.ok, proof.problems.join('; '));
      assert.equal(proof.accountMicros, 426n * USDC);
      assert.equal(proof.floatMicros, FLOAT_MAX);
      assert.equal(proof.depositAddressesMicros, 0n);
      assert.equal(proof.inFlightMicros, 0n);
      const view = (await owner.api.get('/api/v1/wallet/treasury')).body.data;
      assert.equal(view.mode, 'bounded');
      assert.equal(view.float, '40.000000');
    });

    test('after the switch a payout is paid from the float; a withdrawal above the allowance waits and verify-ledger --chain counts it', async () => {
      assert.equal((await pay('5')).status, 'processing');
      await rounds(3);
      assert.equal(await usdcOf(OUTSIDE), 22n * USDC);
      assert.equal(await usdcOf(account), 426n * USDC, 'paid from the float, not the account');
      assert.equal(await usdcOf(rail().keys.treasury.address), 35n * USDC);
      const asked = await withdraw('300');
      assert.equal(asked.status, 202, asked.raw);
      assert.equal(asked.body.data.status, 'awaiting_signatures');
      awaiting = { id: asked.body.data.id, typedData: asked.body.data.signRequest.typedData };
      await rounds(2);
      const proof = await reconcile(true);
      assert.ok(proof.ok, proof.problems.join('; '));
      // Wallets: master 530 − 100 − 47 − 300 = 83, agent 100 − 22 = 78; in flight: the 300 the owners have not
      // signed yet. Held: the account and the float, to the micro.
      assert.equal(proof.inFlightMicros, 300n * USDC);
      assert.equal(proof.liabilitiesMicros, 461n * USDC);
      assert.equal(proof.holdingsMicros, 461n * USDC);
      assert.equal(proof.accountMicros, 426n * USDC);
      assert.equal(proof.floatMicros, 35n * USDC);
    });

    test('backup, restore and move carry the bounded treasury: the copy uses the delegation and pays what the owners sign', async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'treasury-switch-backup-')), 'backup.jsonl');
      folders.push(join(file, '..'));
      const source = operatorContext(h, h.config.databaseUrl);
      assert.equal(await backup(source, file), 0);
      const delegations = await h.services.store.db.selectFrom('treasury_delegations').selectAll().execute();
      const requests = await h.services.store.db
        .selectFrom('treasury_signature_requests')
        .selectAll()
        .execute();
      assert.equal(delegations.length, 1);
      assert.equal(requests.length, 1);
      await h.server.close();

      // Restored without the bounded settings (they live in the environment), the operator is told.
      const bare = mkdtempSync(join(tmpdir(), 'treasury-switch-bare-'));
      folders.push(bare);
      const { DATABASE_URL: _url, ...hotSqlite } = hotEnv;
      const printed: string[] = [];
      const hot = {
        ...operatorContext(
          { config: loadConfig({ ...hotSqlite, DATA_DIR: bare }), postgresSchema: undefined },
          undefined,
        ),
        print: (text: string) => void printed.push(text),
      };
      assert.equal(await restore(hot, file), 0);
      assert.match(printed.join('\n'), /holds the owners' delegation .*TREASURY_MODE=bounded/);

      // The other kind of store: SQLite's backup restores into PostgreSQL and PostgreSQL's into SQLite.
      const other = target.name === 'sqlite' ? 'postgres' : 'sqlite';
      if (other === 'postgres' && !pg.available) return;
      const dataDir = mkdtempSync(join(tmpdir(), 'treasury-switch-restored-'));
      folders.push(dataDir);
      const schema = other === 'postgres' ? uniqueName('switch_restored') : undefined;
      const { DATABASE_URL: _, ...withoutUrl } = boundedEnv;
      const restoredEnv = { ...withoutUrl, ...(other === 'postgres' ? { DATABASE_URL: POSTGRES_URL } : {}) };
      const restoredConfig = loadConfig({ ...restoredEnv, DATA_DIR: dataDir });
      const into = operatorContext(
        { config: restoredConfig, postgresSchema: schema },
        restoredConfig.databaseUrl,
      );
      assert.equal(await restore(into, file), 0);
      // A minute on: the sender's lease the backup recorded has lapsed.
      const clock = new ManualClock(h.clock.nowMs() + 60_000);
      h = await serviceOn(h, restoredEnv, { dataDir, postgresSchema: schema, clock });
      owner.api = as(h.app, owner.token);
      assert.deepEqual(
        await h.services.store.db.selectFrom('treasury_delegations').selectAll().execute(),
        delegations,
      );
      assert.deepEqual(
        await h.services.store.db.selectFrom('treasury_signature_requests').selectAll().execute(),
        requests,
      );
      const view = (await owner.api.get('/api/v1/wallet/treasury')).body.data;
      assert.equal(view.allowance.remaining, '100.000000', 'the restored delegation is found and read');
      assert.notEqual(view.allowance.resetsAt, null);
      for (const signer of [owners[0]!, owners[2]!]) {
        const signature: Hex = await signer.signTypedData(awaiting.typedData);
        const handed = await owner.api.post('/api/v1/wallet/treasury/signatures', {
          id: awaiting.id,
          signature,
        });
        assert.equal(handed.status, 200, handed.raw);
      }
      await rounds(3);
      assert.equal(await usdcOf(RECIPIENT), 347n * USDC, 'the restored copy paid what the owners signed');
      assert.equal(await usdcOf(account), 126n * USDC);
      await assertLedgerOk(h);
      const proof = await reconcile(true);
      assert.ok(proof.ok, proof.problems.join('; '));

      if (target.name !== 'sqlite') return;
      // move: the embedded store (as it was at the backup: the owners' withdrawal still waiting) into PostgreSQL.
      await h.server.close();
      const original = folders[0]!;
      const movedSchema = uniqueName('switch_moved');
      const moving = operatorContext(
        { config: loadConfig({ ...boundedEnv, DATA_DIR: original }), postgresSchema: movedSchema },
        undefined,
      );
      assert.equal(await move(moving, { databaseUrl: POSTGRES_URL }), 0);
      h = await serviceOn(
        h,
        { ...restoredEnv, DATABASE_URL: POSTGRES_URL },
        { dataDir: original, postgresSchema: movedSchema, clock: new ManualClock(clock.nowMs() + 60_000) },
      );
      assert.deepEqual(
        await h.services.store.db.selectFrom('treasury_delegations').selectAll().execute(),
        delegations,
      );
      assert.deepEqual(
        await h.services.store.db.selectFrom('treasury_signature_requests').selectAll().execute(),
        requests,
      );
      owner.api = as(h.app, owner.token);
      const moved = (await owner.api.get('/api/v1/wallet/treasury')).body.data;
      assert.equal(moved.allowance.remaining, '100.000000');
    });
  });
}
