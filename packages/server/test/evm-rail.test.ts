// The evm rail against a real chain: a private anvil with the TestUSDC token, a service with RAIL=evm on both
// stores, and the rail's duties (watch deposits, sweep, send) run by hand so each step is seen.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Address, getAddress, numberToHex } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { loadConfig } from '../src/config.ts';
import { createServer } from '../src/server.ts';
import { createKey, tool, toolOk } from './support/agent.ts';
import { anvilAvailable, mine, revert, rpc, snapshot } from './support/anvil.ts';
import { type EvmWorld, evmEnv, startEvmWorld } from './support/evm.ts';
import { assertLedgerOk } from './support/foundation.ts';
import { type Harness, secondInstance, startHarness, storeTargets } from './support/harness.ts';
import { call, expectError, signupUser, type TestUser } from './support/http.ts';

const CONFIRMATIONS = 3;
const probe = await anvilAvailable();
const OUTSIDE = '0x00000000000000000000000000000000000c0ffe' as Address;

for (const target of await storeTargets()) {
  describe(`evm rail on ${target.name}`, { skip: probe.available ? target.skip : probe.skip }, () => {
    let world: EvmWorld;
    let h: Harness;
    const logLines: string[] = [];
    const duties = () => h.services.chain!.duties;
    /** Runs the sender until nothing is left to send or confirm (mining as it goes): at most `rounds`. */
    const settleAll = async (rounds = 6) => {
      for (let i = 0; i < rounds; i += 1) {
        await duties().send();
        await mine(world.anvil, CONFIRMATIONS);
      }
    };

    before(async () => {
      world = await startEvmWorld();
      h = await startHarness(target.name, 'evm', {
        logTo: { write: (line: string) => void logLines.push(line) },
        env: evmEnv(world, {
          CONFIRMATIONS: String(CONFIRMATIONS),
          EXPLORER_URL: 'https://basescan.org/',
          METRICS_TOKEN: 'evm-metrics-token-0123456789',
        }),
      });
    });
    after(async () => {
      const words = world?.mnemonic.split(' ') ?? [];
      for (const line of logLines) {
        assert.ok(!line.includes(world.mnemonic), 'the mnemonic never reaches a log');
        assert.ok(!line.includes(words.slice(0, 4).join(' ')), 'nor a run of its words');
      }
      await h?.close();
      await world?.anvil.stop();
    });

    test('addresses come from the mnemonic: the master is index 1, agent wallets follow', async () => {
      const user = await signupUser(h.app);
      const master = await user.api.get('/api/v1/wallet');
      const indexOf = (address: string) =>
        [1, 2, 3, 4, 5, 6, 7, 8].find(
          (i) => mnemonicToAccount(world.mnemonic, { addressIndex: i }).address === getAddress(address),
        );
      assert.ok(
        indexOf(master.body.data.address) !== undefined,
        'the master address has a key at a low index',
      );
      const health = await user.api.get('/api/v1/health');
      assert.equal(health.body.data.rail, 'evm');
      assert.equal(health.body.data.treasury.address, world.treasury.toLowerCase());
      assert.equal(health.body.data.treasury.gasWei, String(10n ** 18n));
      assert.equal(health.body.data.explorerUrl, 'https://basescan.org');
      assert.equal(health.body.data.confirmations, CONFIRMATIONS);
      const sandbox = await user.api.post('/api/v1/wallet/sandbox/deposit', { amount: '5' });
      assert.equal(sandbox.status, 404, 'the sandbox deposit does not exist on the evm rail');
    });

    // Outside finding 11: the treasury's address and holdings are not for anyone who asks.
    test('health shows the treasury to the operator and signed-in users only', async () => {
      const treasury = world.treasury.toLowerCase();
      const anonymous = await call(h.app, 'GET', '/api/v1/health');
      assert.equal(anonymous.status, 200, anonymous.raw);
      assert.equal('treasury' in anonymous.body.data, false, anonymous.raw);
      assert.ok(!anonymous.raw.toLowerCase().includes(treasury), 'the address appears nowhere');
      assert.equal(anonymous.body.data.rail, 'evm');
      assert.equal(anonymous.body.data.database, 'up');
      const withToken = (token: string) => call(h.app, 'GET', '/api/v1/health', undefined, { token });
      const operator = await withToken('evm-metrics-token-0123456789');
      assert.equal(operator.body.data.treasury.address, treasury);
      assert.equal(operator.body.data.treasury.gasWei, String(10n ** 18n));
      for (const token of ['evm-metrics-token-0123456789x', 'garbage', 'svc_live_not_a_real_key']) {
        assert.equal('treasury' in (await withToken(token)).body.data, false, token);
      }
      const user = await signupUser(h.app);
      const wallet = await user.api.post('/api/v1/agent-wallets', { label: 'health' });
      const agentKey = (await createKey(user, wallet.body.data.id, { label: 'k' })).key;
      assert.equal('treasury' in (await withToken(agentKey)).body.data, false, 'an agent key is not enough');
      assert.equal((await user.api.get('/api/v1/health')).body.data.treasury.address, treasury);
      await user.api.post('/api/v1/auth/logout');
      assert.equal('treasury' in (await user.api.get('/api/v1/health')).body.data, false, 'logged out');
    });

    test('/metrics shows the treasury’s gas and USDC', async () => {
      await duties().send();
      const reply = await h.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: 'Bearer evm-metrics-token-0123456789' },
      });
      assert.equal(reply.statusCode, 200);
      assert.match(reply.body, /^agent_wallet_treasury_gas_wei \d/m);
      assert.match(reply.body, /^agent_wallet_treasury_usdc_micros \d/m);
      assert.match(reply.body, /^agent_wallet_treasury_at_risk_usdc_micros \d/m);
    });

    test('a sandbox database is refused on the evm rail, and an evm database on the sandbox', async () => {
      const sandboxFirst = await startHarness(target.name, 'evm-refuse');
      await signupUser(sandboxFirst.app);
      const asEvm = {
        ...sandboxFirst.config,
        ...loadConfig({ ...evmEnv(world), DATA_DIR: sandboxFirst.dataDir }),
      };
      const options = {
        clock: sandboxFirst.clock,
        logLevel: false as const,
        backgroundIntervalMs: null,
        ...(sandboxFirst.postgresSchema === undefined ? {} : { postgresSchema: sandboxFirst.postgresSchema }),
      };
      try {
        await assert.rejects(
          createServer({ ...asEvm, databaseUrl: sandboxFirst.config.databaseUrl }, options),
          /created on the sandbox rail: its wallet addresses have no keys/,
        );
        const onSandbox = { ...h.config, rail: 'sandbox' as const, evm: null };
        await assert.rejects(
          createServer(onSandbox, {
            ...options,
            ...(h.postgresSchema === undefined ? {} : { postgresSchema: h.postgresSchema }),
          }),
          /created on the evm rail and holds real money/,
        );
      } finally {
        await sandboxFirst.close();
      }
    });

    test('a deposit is credited once, only after CONFIRMATIONS blocks', async () => {
      const user = await signupUser(h.app);
      const master = (await user.api.get('/api/v1/wallet')).body.data;
      await world.usdc.mint(master.address, 25_000_000n);
      await duties().watchDeposits();
      assert.equal(
        (await user.api.get('/api/v1/wallet')).body.data.balance,
        '0.000000',
        'not yet deep enough',
      );
      const pending = await user.api.get('/api/v1/wallet/deposits/pending');
      assert.equal(pending.status, 200, pending.raw);
      assert.equal(pending.body.data.total, 1);
      const seen = pending.body.data.items[0];
      assert.equal(seen.amount, '25.000000');
      assert.equal(seen.address, master.address);
      assert.equal(seen.confirmations, 1);
      assert.equal(seen.confirmationsRequired, CONFIRMATIONS);
      await mine(world.anvil, CONFIRMATIONS - 1);
      await duties().watchDeposits();
      await duties().watchDeposits();
      const credited = await user.api.get('/api/v1/wallet');
      assert.equal(credited.body.data.balance, '25.000000');
      assert.equal((await user.api.get('/api/v1/wallet/deposits/pending')).body.data.total, 0);
      const deposits = await user.api.get('/api/v1/wallet/deposits');
      assert.equal(deposits.body.data.total, 1);
      assert.equal(deposits.body.data.items[0].rail, 'evm');
      assert.match(deposits.body.data.items[0].txHash, /^0x[0-9a-f]{64}$/);
      await assertLedgerOk(h);
    });

    test('a deposit to an agent wallet’s address credits that agent wallet, with its hash in the history', async () => {
      const user = await signupUser(h.app);
      const wallet = (await user.api.post('/api/v1/agent-wallets', { label: 'direct' })).body.data;
      const key = await createKey(user, wallet.id, { label: 'reader' });
      await world.usdc.mint(wallet.address, 3_250_000n);
      await mine(world.anvil, CONFIRMATIONS);
      await duties().watchDeposits();
      const balance = toolOk(await tool(h, key.key, 'check_balance'), 'check_balance');
      assert.equal(balance.balance, '3.250000');
      const history = toolOk(await tool(h, key.key, 'get_tx_history'), 'get_tx_history');
      assert.equal(history.transactions.length, 1);
      const [incoming] = history.transactions;
      assert.equal(incoming.type, 'incoming');
      assert.equal(incoming.rail, 'evm');
      assert.equal(incoming.amount, '3.250000');
      assert.match(incoming.txHash, /^0x[0-9a-f]{64}$/);
      assert.equal((await user.api.get('/api/v1/wallet')).body.data.balance, '0.000000', 'not the master');
      await assertLedgerOk(h);
    });

    test('a transfer re-orged away before CONFIRMATIONS is never credited', async () => {
      const user = await signupUser(h.app);
      const master = (await user.api.get('/api/v1/wallet')).body.data;
      const id = await snapshot(world.anvil);
      await world.usdc.mint(master.address, 7_000_000n);
      await duties().watchDeposits();
      await revert(world.anvil, id);
      await mine(world.anvil, CONFIRMATIONS + 1);
      await duties().watchDeposits();
      await duties().watchDeposits();
      assert.equal((await user.api.get('/api/v1/wallet')).body.data.balance, '0.000000');
      const pending = await h.services.store.db
        .selectFrom('chain_deposits')
        .selectAll()
        .where('to_address', '=', master.address.toLowerCase())
        .execute();
      assert.deepEqual(pending, [], 'the dropped transfer left no row');
    });

    describe('with a funded agent', () => {
      let agent: { user: TestUser; walletId: string; key: string };
      before(async () => {
        const user = await signupUser(h.app);
        const wallet = await user.api.post('/api/v1/agent-wallets', { label: 'payer' });
        const key = await createKey(user, wallet.body.data.id, { label: 'agent key' });
        agent = { user, walletId: wallet.body.data.id, key: key.key };
        const master = (await agent.user.api.get('/api/v1/wallet')).body.data;
        await world.usdc.mint(master.address, 100_000_000n);
        await mine(world.anvil, CONFIRMATIONS);
        await duties().watchDeposits();
        const funded = await agent.user.api.post(`/api/v1/agent-wallets/${agent.walletId}/fund`, {
          amount: '60',
        });
        assert.equal(funded.status, 200, funded.raw);
      });

      test('deposits are swept to the treasury by authorization: the deposit address spends no gas', async () => {
        const master = (await agent.user.api.get('/api/v1/wallet')).body.data;
        const before = await world.usdc.balanceOf(world.treasury);
        await settleAll();
        assert.equal(await world.usdc.balanceOf(master.address), 0n, 'the deposit address is empty');
        assert.ok((await world.usdc.balanceOf(world.treasury)) >= before + 100_000_000n);
        const gas = await world.usdc.publicClient.getBalance({ address: master.address });
        assert.equal(gas, 0n, 'the deposit address never held or spent gas');
        const nonce = await world.usdc.publicClient.getTransactionCount({ address: master.address });
        assert.equal(nonce, 0, 'the deposit address never sent a transaction');
      });

      test('a payout reaches the recipient and completes with its txHash', async () => {
        const paid = toolOk(
          await tool(h, agent.key, 'send_payment', {
            toAddress: OUTSIDE,
            amount: '12.5',
            idempotencyKey: 'p1',
          }),
          'send_payment',
        );
        assert.equal(paid.status, 'processing');
        await settleAll();
        assert.equal(await world.usdc.balanceOf(OUTSIDE), 12_500_000n);
        const history = toolOk(await tool(h, agent.key, 'get_tx_history', {}), 'get_tx_history');
        const tx = history.transactions.find((t: { id: string }) => t.id === paid.txId);
        assert.equal(tx.status, 'completed');
        assert.equal(tx.rail, 'evm');
        const receipt = await world.usdc.publicClient.getTransactionReceipt({ hash: tx.txHash });
        assert.equal(receipt.status, 'success');
        assert.equal(receipt.from.toLowerCase(), world.treasury.toLowerCase());
        await assertLedgerOk(h);
      });

      test('a transfer the token refuses fails before any gas, and the money is back', async () => {
        const blocked = '0x00000000000000000000000000000000000b10c4' as Address;
        await world.usdc.setBlocked(blocked, true);
        const before = toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance').balance;
        const paid = toolOk(
          await tool(h, agent.key, 'send_payment', { toAddress: blocked, amount: '1' }),
          'send_payment',
        );
        assert.equal(paid.status, 'processing');
        await settleAll(2);
        const tx = await h.services.store.db
          .selectFrom('transactions')
          .selectAll()
          .where('id', '=', paid.txId)
          .executeTakeFirstOrThrow();
        assert.equal(tx.status, 'failed');
        assert.equal(toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance').balance, before);
        await assertLedgerOk(h);
      });

      test('a transfer that reverts on chain fails, and the money is back', async () => {
        const victim = '0x00000000000000000000000000000000000dead1' as Address;
        const before = toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance').balance;
        await rpc(world.anvil, 'evm_setAutomine', [false]);
        try {
          const paid = toolOk(
            await tool(h, agent.key, 'send_payment', { toAddress: victim, amount: '2' }),
            'send_payment',
          );
          await duties().send(); // signed and broadcast, not mined
          // Blocked in the same block, ahead of the payout (a higher tip is mined first): the payout reverts.
          await world.usdc.walletClient.writeContract({
            address: world.usdc.address,
            abi: world.usdc.abi,
            functionName: 'setBlocked',
            args: [victim, true],
            maxPriorityFeePerGas: 100_000_000_000n,
            maxFeePerGas: 200_000_000_000n,
          });
          await mine(world.anvil, 1);
          await rpc(world.anvil, 'evm_setAutomine', [true]);
          await settleAll(2);
          const tx = await h.services.store.db
            .selectFrom('transactions')
            .selectAll()
            .where('id', '=', paid.txId)
            .executeTakeFirstOrThrow();
          assert.equal(tx.status, 'failed');
          assert.match(tx.tx_hash ?? '', /^0x[0-9a-f]{64}$/, 'the reverted transaction is named');
          assert.equal(toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance').balance, before);
        } finally {
          await rpc(world.anvil, 'evm_setAutomine', [true]);
        }
        await assertLedgerOk(h);
      });

      test('a treasury out of gas refuses payouts with a 503 before any debit', async () => {
        await rpc(world.anvil, 'anvil_setBalance', [world.treasury, '0x0']);
        await duties().send(); // a round reads the treasury
        try {
          const before = toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance').balance;
          const refused = await tool(h, agent.key, 'send_payment', { toAddress: OUTSIDE, amount: '1' });
          expectError(refused, 503, 'SERVICE_UNAVAILABLE');
          assert.match(refused.body.error.message, /low on gas/);
          assert.equal(toolOk(await tool(h, agent.key, 'check_balance'), 'check_balance').balance, before);
          const health = await agent.user.api.get('/api/v1/health');
          assert.equal(health.body.data.status, 'degraded');
          const anonymous = await call(h.app, 'GET', '/api/v1/health');
          assert.match(anonymous.body.data.reasons.join(' '), /treasury is low on gas/);
          assert.ok(!anonymous.raw.toLowerCase().includes(world.treasury.toLowerCase()), anonymous.raw);
        } finally {
          await rpc(world.anvil, 'anvil_setBalance', [world.treasury, numberToHex(10n ** 18n)]);
          await duties().send();
        }
      });

      test('a payout stuck unmined is re-signed with the same nonce and higher fees; only one is mined', async () => {
        const recipient = '0x00000000000000000000000000000000000fee01' as Address;
        const outboxOf = (txId: string) =>
          h.services.store.db
            .selectFrom('chain_outbox')
            .selectAll()
            .where('transaction_id', '=', txId)
            .executeTakeFirstOrThrow();
        await rpc(world.anvil, 'evm_setAutomine', [false]);
        let txId: string;
        try {
          const paid = toolOk(
            await tool(h, agent.key, 'send_payment', { toAddress: recipient, amount: '1.5' }),
            'send_payment',
          );
          txId = paid.txId;
          await duties().send();
          const first = await outboxOf(txId);
          assert.equal(JSON.parse(first.tx_hashes_json).length, 1);
          h.clock.advanceMs(h.config.evm!.feeBumpAfterMs + 1);
          await duties().send();
          const bumped = await outboxOf(txId);
          assert.equal(bumped.nonce, first.nonce, 'the same nonce: only one of them can be mined');
          assert.equal(JSON.parse(bumped.tx_hashes_json).length, 2);
          assert.ok(BigInt(bumped.max_fee_per_gas!) > BigInt(first.max_fee_per_gas!), 'higher fees');
          await mine(world.anvil, 1);
        } finally {
          await rpc(world.anvil, 'evm_setAutomine', [true]);
        }
        await settleAll(2);
        const done = await outboxOf(txId);
        assert.equal(done.status, 'completed', String(done.last_error));
        assert.ok(JSON.parse(done.tx_hashes_json).includes(done.mined_tx_hash));
        assert.equal(await world.usdc.balanceOf(recipient), 1_500_000n, 'paid exactly once');
      });

      test('two instances on one database: one sender at a time, every nonce used once', async () => {
        const second = await secondInstance(h);
        try {
          const recipients = [1, 2, 3, 4, 5, 6].map(
            (i) => `0x00000000000000000000000000000000000${String(i).padStart(2, '0')}2a2` as Address,
          );
          for (const [i, recipient] of recipients.entries()) {
            const app = i % 2 === 0 ? h.app : second.app;
            const reply = await app.inject({
              method: 'POST',
              url: '/mcp/v1/tools/send_payment',
              headers: { authorization: `Bearer ${agent.key}` },
              payload: { params: { toAddress: recipient, amount: '0.5' } },
            });
            assert.equal(reply.statusCode, 200, reply.body);
          }
          for (let round = 0; round < 4; round += 1) {
            const [a, b] = await Promise.all([duties().send(), second.services.chain!.duties.send()]);
            assert.ok(
              !((a as { leased: boolean }).leased && (b as { leased: boolean }).leased),
              'never two senders',
            );
            await mine(world.anvil, CONFIRMATIONS);
          }
          for (const recipient of recipients) assert.equal(await world.usdc.balanceOf(recipient), 500_000n);
          const rows = await h.services.store.db.selectFrom('chain_outbox').select('nonce').execute();
          const nonces = rows.map((r) => r.nonce).filter((n) => n !== null);
          assert.equal(new Set(nonces).size, nonces.length, 'no nonce stored twice');
          const chainCount = await world.usdc.publicClient.getTransactionCount({ address: world.treasury });
          assert.equal(
            chainCount,
            nonces.length,
            'every stored nonce is one transaction on chain, and none else',
          );
        } finally {
          await second.close();
        }
      });

      test('an approved payment to an outside address is paid on chain', async () => {
        const recipient = '0x00000000000000000000000000000000000a9901' as Address;
        const asked = toolOk(
          await tool(h, agent.key, 'request_approval', {
            toAddress: recipient,
            amount: '4',
            reason: 'a tool',
          }),
          'request_approval',
        );
        const approved = await agent.user.api.post(
          `/api/v1/agent-wallets/${agent.walletId}/transactions/${asked.txId}/approve`,
        );
        assert.equal(approved.status, 200, approved.raw);
        assert.equal(approved.body.data.status, 'processing');
        assert.equal(approved.body.data.rail, 'evm');
        await settleAll(2);
        assert.equal(await world.usdc.balanceOf(recipient), 4_000_000n);
        const tx = await agent.user.api.get(
          `/api/v1/agent-wallets/${agent.walletId}/transactions/${asked.txId}`,
        );
        assert.equal(tx.body.data.status, 'completed');
        assert.match(tx.body.data.txHash, /^0x[0-9a-f]{64}$/);
        await assertLedgerOk(h);
      });

      test('a payment to another wallet of the service stays internal: no chain transaction', async () => {
        const other = await signupUser(h.app);
        const otherMaster = (await other.api.get('/api/v1/wallet')).body.data;
        const head = await world.usdc.publicClient.getBlockNumber();
        const paid = toolOk(
          await tool(h, agent.key, 'send_payment', { toAddress: otherMaster.address, amount: '3' }),
          'send_payment',
        );
        assert.equal(paid.status, 'completed');
        assert.equal(paid.txHash, null);
        await duties().send();
        assert.equal(await world.usdc.publicClient.getBlockNumber(), head, 'nothing was sent on chain');
        assert.equal((await other.api.get('/api/v1/wallet')).body.data.balance, '3.000000');
      });
    });
  });
}
