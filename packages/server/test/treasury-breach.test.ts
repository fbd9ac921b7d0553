// TREASURY_MODE=bounded on anvil with the MetaMask Delegation Framework's real bytecode (from npm): the owners'
// MultiSigDeleGator account, the delegation they sign to the service's key (an ERC20PeriodTransferEnforcer caveat),
// the float refilled by redeeming it, and the breach drill — the test holds every secret the server holds (its
// mnemonic, DATA_DIR, the database) and plays the attacker, and the chain holds the line: what left the account
// plus the float is at most the float plus the period's remaining allowance.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ERC20PeriodTransferEnforcer } from '@metamask/delegation-abis';
import { type Address, encodeFunctionData, getAddress } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { activeDelegation, boundedAccount, shapeOf } from '../src/chain/bounded/bounded.ts';
import { grantDelegation, prepareDelegation } from '../src/chain/bounded/bounded-setup.ts';
import {
  delegationFromJson,
  delegationHash,
  redeemCall,
  type SignedDelegation,
} from '../src/chain/bounded/delegation.ts';
import {
  handleOpsCall,
  ownersOperation,
  signRequestOf,
  transferCallData,
} from '../src/chain/bounded/owners-ops.ts';
import { reconcileChain } from '../src/chain/reconcile/reconcile.ts';
import { backup } from '../src/operate.ts';
import { openStore } from '../src/store/db.ts';
import { decodeLine, type SnapshotHeader } from '../src/store/snapshot.ts';
import { tool, toolOk } from './support/agent.ts';
import { anvilAvailable, anvilWalletClient, mine, rpc } from './support/anvil.ts';
import {
  accountOperation,
  deployFrameworkFor,
  executeCallData,
  type Framework,
  owners,
  revokeCallData,
} from './support/bounded.ts';
import { type EvmWorld, evmEnv, fundedEvmBuyer, startEvmWorld } from './support/evm.ts';
import { assertLedgerOk } from './support/foundation.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';

process.env.DO_NOT_TRACK = '1';
const probe = await anvilAvailable();
const USDC = 1_000_000n;
const ALLOWANCE = 100n * USDC;
const FLOAT_MAX = 40n * USDC;
const DAY_SECONDS = 86_400;
const ATTACKER = '0x00000000000000000000000000000000000bad00' as Address;
const OUTSIDE = '0x00000000000000000000000000000000000c0ffe' as Address;

/** `agent-wallet backup` of the harness's store, read back: its mnemonic and the owners' delegation. */
async function stealBackup(h: Harness): Promise<{ mnemonic: string; delegation: SignedDelegation }> {
  const file = join(h.dataDir, `stolen-${Date.now()}.jsonl`);
  const ctx = {
    config: h.config,
    openStore: () =>
      openStore({
        databaseUrl: h.config.databaseUrl,
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
  assert.equal(await backup(ctx, file), 0);
  const lines = readFileSync(file, 'utf8').trim().split('\n').map(decodeLine);
  const header = lines[0] as SnapshotHeader;
  const at = lines.findIndex((l) => 'table' in l && l.table === 'treasury_delegations');
  const table = lines[at] as { columns: string[] };
  const row = (lines[at + 1] as { rows: unknown[][] }).rows[0]!;
  const json = row[table.columns.indexOf('delegation_json')] as string;
  return { mnemonic: header.secrets.treasuryMnemonic!, delegation: delegationFromJson(json) };
}

const refillCount = async (db: Harness['services']['store']['db']) =>
  (await db.selectFrom('chain_outbox').select('id').where('kind', '=', 'refill').execute()).length;

for (const target of await storeTargets()) {
  describe(`bounded treasury on ${target.name}`, { skip: probe.available ? target.skip : probe.skip }, () => {
    let world: EvmWorld;
    let framework: Framework;
    let h: Harness;
    let account: Address;
    const rail = () => h.services.chain!.rail;
    const duties = () => h.services.chain!.duties;
    const deps = () => ({
      db: h.services.store.db,
      client: rail().client,
      config: rail().config,
      keys: rail().keys,
    });
    const balance = (address: Address) => world.usdc.balanceOf(address);
    const rounds = async (n: number) => {
      for (let i = 0; i < n; i += 1) {
        await duties().send();
        await mine(world.anvil, 1);
      }
    };
    const reconcile = () =>
      reconcileChain(
        h.services.store.db,
        rail().client,
        rail().config,
        rail().keys.treasury.address.toLowerCase(),
        account,
      );
    const genuine = () =>
      activeDelegation(
        h.services.store.db,
        rail().client,
        rail().config,
        shapeOf(rail().config, rail().keys),
      );
    const remaining = async () => {
      const stored = (await genuine())!;
      const [available] = await world.usdc.publicClient.readContract({
        address: stored.delegation.caveats[0]!.enforcer,
        abi: ERC20PeriodTransferEnforcer,
        functionName: 'getAvailableAmount',
        args: [
          delegationHash(stored.delegation),
          getAddress(framework.env.DELEGATION_MANAGER_ADDRESS!),
          stored.delegation.caveats[0]!.terms,
        ],
      });
      return available;
    };

    before(async () => {
      world = await startEvmWorld();
      framework = await deployFrameworkFor(world);
      h = await startHarness(target.name, 'treasury_breach', {
        env: evmEnv(world, {
          ...framework.env,
          CONFIRMATIONS: '1',
          TREASURY_MODE: 'bounded',
          TREASURY_ALLOWANCE: '100',
          TREASURY_FLOAT_MAX: '40',
          TREASURY_OWNERS: owners.map((o) => o.address).join(','),
          TREASURY_THRESHOLD: '2',
        }),
      });
      account = boundedAccount(rail().config.bounded!, rail().keys);
      const prepared = await prepareDelegation(deps());
      assert.equal(prepared.delegation.delegator, account);
      const code = await world.usdc.publicClient.getCode({ address: account });
      assert.ok(code !== undefined && code.length > 2, 'the owners account is deployed');
      // Two of the three owners sign; one alone is refused.
      const sign = (i: number) =>
        owners[i]!.signTypedData(prepared.typedData).then((signature) => ({
          signer: owners[i]!.address,
          signature,
        }));
      await assert.rejects(
        grantDelegation(
          deps(),
          { delegation: prepared.delegation, signatures: [await sign(0)] },
          h.clock.nowMs(),
        ),
        /does not accept these signatures/,
      );
      await grantDelegation(
        deps(),
        { delegation: prepared.delegation, signatures: [await sign(0), await sign(2)] },
        h.clock.nowMs(),
      );
      await world.usdc.mint(account, 1_000n * USDC);
    });
    after(async () => {
      await h?.close();
      await world?.anvil.stop();
    });

    test('the float is refilled within the allowance, never above TREASURY_FLOAT_MAX; deposits sweep into the account', async () => {
      const view = async () =>
        (
          await (
            await (await import('./support/http.ts')).signupUser(h.app)
          ).api.get('/api/v1/wallet/treasury')
        ).body.data;
      const before = await view();
      assert.equal(before.mode, 'bounded');
      assert.equal(before.account, getAddress(account));
      assert.deepEqual(
        before.owners.map((o: string) => o.toLowerCase()).sort(),
        owners.map((o) => o.address.toLowerCase()).sort(),
      );
      assert.equal(before.threshold, 2);
      assert.equal(before.allowance.perPeriod, '100.000000');
      assert.equal(before.allowance.period, '1d');
      assert.equal(before.allowance.remaining, '100.000000');
      const startSeconds = Number(
        (
          await h.services.store.db
            .selectFrom('treasury_delegations')
            .select('start_seconds')
            .executeTakeFirstOrThrow()
        ).start_seconds,
      );
      assert.equal(before.allowance.resetsAt, new Date((startSeconds + DAY_SECONDS) * 1000).toISOString());
      assert.equal(before.float, '0.000000');
      assert.equal(before.atRisk, '100.000000');

      const buyer = await fundedEvmBuyer(h, world, {
        masterMicros: 50n * USDC,
        fund: '30',
        confirmations: 1,
      });
      assert.equal(
        await balance(account),
        1_050n * USDC - (await balance(rail().keys.treasury.address)),
        'the deposit went into the account (less what refilled the float)',
      );
      // Payouts under load: each paid from the float, the float refilled by redemptions only.
      for (let i = 0; i < 6; i += 1) {
        toolOk(await tool(h, buyer.key, 'send_payment', { toAddress: OUTSIDE, amount: '4' }), 'send_payment');
      }
      await rounds(8);
      assert.equal(await balance(OUTSIDE), 24n * USDC, 'every payout went out');
      const float = await balance(rail().keys.treasury.address);
      assert.ok(float <= FLOAT_MAX, `the float ${float} never exceeds its cap`);
      const redeemed = ALLOWANCE - (await remaining());
      assert.equal(float + 24n * USDC, redeemed, 'all the float ever held came from redemptions');
      assert.ok(redeemed <= ALLOWANCE);
      const after = await view();
      assert.equal(after.atRisk, (Number(float + (await remaining())) / 1e6).toFixed(6));
      await assertLedgerOk(h);
      const proof = await reconcile();
      assert.ok(proof.ok, `verify-ledger --chain: ${proof.problems.join('; ')}`);
      assert.ok(proof.holdingsMicros >= proof.liabilitiesMicros);
    });

    test('the breach drill: a stolen backup, every key, the delegation, forged rows and a stuffed outbox take at most float + remaining + unswept deposits', async () => {
      // A deposit on chain not yet swept into the account (its watcher round has not run): at risk too.
      const unswept0 = 3n * USDC;
      await world.usdc.mint(mnemonicToAccount(world.mnemonic, { addressIndex: 2 }).address, unswept0);
      const float0 = await balance(rail().keys.treasury.address);
      const remaining0 = await remaining();
      const account0 = await balance(account);
      // What the chain allows is what the owners configured: no more than one allowance a period.
      assert.ok(
        remaining0 <= ALLOWANCE - float0,
        `remaining ${remaining0} + float ${float0} within one allowance`,
      );
      const db = h.services.store.db;
      // The attacker's loot: a backup file (the deployment's secrets and every row), taken as an operator would.
      const stolen = await stealBackup(h);
      assert.equal(stolen.mnemonic, world.mnemonic, 'the backup holds the mnemonic the environment holds');
      const stored = { delegation: stolen.delegation };
      const attackerKeys = Array.from({ length: 12 }, (_, i) =>
        mnemonicToAccount(stolen.mnemonic, { addressIndex: i }),
      );
      const signed = (i: number) => anvilWalletClient(world.anvil, attackerKeys[i]!);
      // Gas for every derived key: the attacker can fund them.
      for (const key of attackerKeys)
        await rpc(world.anvil, 'anvil_setBalance', [key.address, '0xDE0B6B3A7640000']);
      const refillsBefore = await refillCount(db);
      // 1. Direct transfers from every key the mnemonic derives.
      for (let i = 0; i < attackerKeys.length; i += 1) {
        const held = await balance(attackerKeys[i]!.address);
        if (held === 0n) continue;
        await signed(i).writeContract({
          address: world.usdc.address,
          abi: world.usdc.abi,
          functionName: 'transfer',
          args: [ATTACKER, held],
        });
      }
      // 2. Redeeming the delegation: the rest of the period goes, one micro more does not.
      const fw = rail().config.bounded!.framework;
      const redeem = (amount: bigint, delegation: SignedDelegation = stored.delegation) =>
        signed(0).sendTransaction({
          ...redeemCall(fw, delegation, world.usdc.address, ATTACKER, amount),
          gas: 1_000_000n,
        });
      const receiptOf = async (hash: `0x${string}`) =>
        (await world.usdc.publicClient.waitForTransactionReceipt({ hash })).status;
      assert.equal(await receiptOf(await redeem(remaining0)), 'success');
      assert.equal(await receiptOf(await redeem(1n)), 'reverted', 'past the allowance the enforcer refuses');
      // 3. Executions on the account signed by the service's keys: refused by its owners check.
      const transferOut = encodeFunctionData({
        abi: world.usdc.abi,
        functionName: 'transfer',
        args: [ATTACKER, account0],
      });
      await assert.rejects(
        accountOperation(
          world,
          framework,
          account,
          executeCallData(world.usdc.address, transferOut),
          attackerKeys.slice(0, 3),
          attackerKeys[0],
        ),
      );
      const direct = await signed(0).sendTransaction({
        to: account,
        data: executeCallData(world.usdc.address, transferOut),
        gas: 500_000n,
      });
      assert.equal(
        await receiptOf(direct),
        'reverted',
        'only the EntryPoint or the account itself may execute',
      );
      // 4. A forged "owners signed" delegation in the database: unlimited, signed by the service's keys.
      const forged: SignedDelegation = {
        ...stored.delegation,
        caveats: [],
        salt: 42n,
        signature: await attackerKeys[0]!.signMessage({ message: 'owners signed' }),
      };
      await db
        .insertInto('treasury_delegations')
        .values({
          id: 'tdl_forged',
          chain_id: BigInt(world.anvil.chainId),
          account,
          delegate: rail().keys.treasury.address.toLowerCase(),
          delegation_hash: delegationHash(forged),
          delegation_json: JSON.stringify({ ...forged, salt: '42' }),
          allowance_micros: 10n ** 15n,
          period_seconds: 1n,
          start_seconds: 1n,
          status: 'active',
          created_at_ms: BigInt(h.clock.nowMs() + 1_000),
          revoked_at_ms: null,
        })
        .execute();
      assert.equal(
        await receiptOf(await redeem(account0 / 2n, forged)),
        'reverted',
        'the account refuses a signature that is not its owners',
      );
      // The same caveat, but "signed" by the service's keys in the owners' place: a row the service itself uses.
      const lookalike: SignedDelegation = { ...stored.delegation, salt: 43n, signature: forged.signature };
      await db
        .insertInto('treasury_delegations')
        .values({
          id: 'tdl_lookalike',
          chain_id: BigInt(world.anvil.chainId),
          account,
          delegate: rail().keys.treasury.address.toLowerCase(),
          delegation_hash: delegationHash(lookalike),
          delegation_json: JSON.stringify({ ...lookalike, salt: '43' }),
          allowance_micros: ALLOWANCE,
          period_seconds: BigInt(DAY_SECONDS),
          start_seconds: 1n,
          status: 'active',
          created_at_ms: BigInt(h.clock.nowMs() + 2_000),
          revoked_at_ms: null,
        })
        .execute();
      // 5. The outbox stuffed with payouts to the attacker, and the service's own rounds run on the forged row.
      const wallet = await db.selectFrom('wallets').select('id').executeTakeFirstOrThrow();
      for (let i = 0; i < 10; i += 1) {
        await db
          .insertInto('chain_outbox')
          .values({
            id: `obx_stuffed${i}`,
            kind: 'payout',
            transaction_id: null,
            wallet_id: wallet.id,
            from_address: rail().keys.treasury.address.toLowerCase(),
            to_address: ATTACKER,
            amount_micros: 50n * USDC,
            status: 'queued',
            tx_hashes_json: '[]',
            attempts: 0n,
            created_at_ms: BigInt(h.clock.nowMs()),
            updated_at_ms: BigInt(h.clock.nowMs()),
          })
          .execute();
      }
      // …and with operations of the owners' account "signed at the threshold" by the service's keys (what a
      // withdrawal the owners signed becomes): the service sends them; the account refuses them.
      const drain = await ownersOperation(
        rail().client,
        rail().config.bounded!.framework.entryPoint,
        account,
        'stuffed',
        transferCallData(world.usdc.address, ATTACKER, account0),
      );
      const call = handleOpsCall(
        rail().config.bounded!.framework.entryPoint,
        drain,
        await Promise.all(
          attackerKeys.slice(0, 2).map(async (k) => ({
            signer: k.address,
            signature: await k.signTypedData(
              signRequestOf(
                drain,
                rail().config.bounded!.framework.entryPoint,
                world.anvil.chainId,
                'multisig',
              ).typedData,
            ),
          })),
        ),
        rail().keys.treasury.address,
      );
      await db
        .insertInto('chain_outbox')
        .values({
          id: 'obx_stuffed_op',
          kind: 'owners_op',
          transaction_id: null,
          wallet_id: null,
          from_address: account,
          to_address: ATTACKER,
          amount_micros: account0,
          status: 'queued',
          tx_hashes_json: '[]',
          authorization_json: JSON.stringify(call),
          attempts: 0n,
          created_at_ms: BigInt(h.clock.nowMs()),
          updated_at_ms: BigInt(h.clock.nowMs()),
        })
        .execute();
      await rounds(6);
      const stuffedOp = await db
        .selectFrom('chain_outbox')
        .select(['status', 'last_error'])
        .where('id', '=', 'obx_stuffed_op')
        .executeTakeFirstOrThrow();
      assert.equal(stuffedOp.status, 'failed', 'the account refused the operation its owners did not sign');
      const taken = await balance(ATTACKER);
      const leftAccount = account0 - (await balance(account));
      const floatNow = await balance(rail().keys.treasury.address);
      assert.ok(
        leftAccount <= remaining0,
        `the account lost ${leftAccount}, the allowance left was ${remaining0}`,
      );
      assert.ok(
        taken + floatNow <= float0 + remaining0 + unswept0,
        `taken ${taken} + float ${floatNow} <= ${float0} + ${remaining0} + unswept ${unswept0}`,
      );
      assert.equal(
        taken,
        float0 + remaining0 + unswept0,
        'the bound is tight: exactly the float, the rest of the period and the unswept deposit went',
      );
      // verify-ledger --chain names what the attacker did with the service's keys.
      const proof = await reconcile();
      assert.ok(
        proof.problems.some((p) =>
          /redemption 0x[0-9a-f]+ of the owners' delegation is not a refill/.test(p),
        ),
        proof.problems.join('; '),
      );
      assert.ok(proof.problems.some((p) => p.includes(`to ${ATTACKER}: the ledger does not know it`)));
      await db.deleteFrom('chain_outbox').where('id', 'like', 'obx_stuffed%').execute();
      // The genuine delegation has nothing left this period; the lookalike (a fresh allowance by its own hash,
      // were it believed) would have been redeemed by the service's rounds.
      assert.equal(
        await refillCount(db),
        refillsBefore,
        'the service passes over a row its owners did not sign',
      );
      const shown = await rail().treasury.refresh();
      assert.equal(shown!.bounded!.remainingMicros, 0n, 'nor counts its allowance');
      await db
        .deleteFrom('treasury_delegations')
        .where('id', 'in', ['tdl_forged', 'tdl_lookalike'])
        .execute();
    });

    test('the next period brings the next allowance; the owners revoke and no redemption passes after', async () => {
      assert.equal(await remaining(), 0n);
      await rpc(world.anvil, 'evm_increaseTime', [DAY_SECONDS]);
      await mine(world.anvil, 1);
      assert.equal(await remaining(), ALLOWANCE, 'a new period: the whole allowance again');
      await rounds(3);
      assert.equal(
        await balance(rail().keys.treasury.address),
        FLOAT_MAX,
        'the float refilled to its cap, no more',
      );
      const stored = (await genuine())!;
      // One owner alone cannot revoke; two can.
      await assert.rejects(
        accountOperation(world, framework, account, revokeCallData(stored.delegation), owners.slice(0, 1)),
      );
      await accountOperation(
        world,
        framework,
        account,
        revokeCallData(stored.delegation),
        owners.slice(1, 3),
      );
      const view = rail().treasury;
      const reading = await view.refresh();
      assert.equal(reading!.bounded!.remainingMicros, 0n, 'revoked: nothing remains');
      const accountBefore = await balance(account);
      const attacker = anvilWalletClient(world.anvil, mnemonicToAccount(world.mnemonic, { addressIndex: 0 }));
      const hash = await attacker.sendTransaction({
        ...redeemCall(rail().config.bounded!.framework, stored.delegation, world.usdc.address, ATTACKER, 1n),
        gas: 1_000_000n,
      });
      assert.equal((await world.usdc.publicClient.waitForTransactionReceipt({ hash })).status, 'reverted');
      await rpc(world.anvil, 'evm_increaseTime', [DAY_SECONDS]);
      await mine(world.anvil, 1);
      await rounds(3);
      assert.equal(
        await balance(account),
        accountBefore,
        'after revocation not even a new period moves a dollar',
      );
    });
  });
}
