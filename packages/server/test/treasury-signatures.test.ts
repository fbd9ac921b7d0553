// What only the owners can make their account do (bounded mode): a request with its signRequest (a user operation
// of the account in EIP-712 form, its own EntryPoint nonce key), owners' signatures handed in one at a time,
// submitted once at the threshold by the service (which pays the gas) — on anvil with the framework's npm
// bytecode. A signature from a non-owner, over another request, or twice from one owner is refused; two requests
// waiting at once execute in whichever order they are signed; two instances handing in the last signatures at once
// submit it once; a call the account cannot make ends `failed`; the owners revoke the service's delegation this way.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Address, getAddress, type Hex } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { activeDelegation, OWNERS_SIGNATURES_MAX_AGE_MS, shapeOf } from '../src/chain/bounded/bounded.ts';
import {
  addOwnerSignature,
  createOwnersRequest,
  type OwnersDeps,
  SignatureRefused,
} from '../src/chain/bounded/owners-requests.ts';
import { reconcileChain } from '../src/chain/reconcile/reconcile.ts';
import { anvilAvailable, mine } from './support/anvil.ts';
import { owners, startBoundedWorld } from './support/bounded.ts';
import type { EvmWorld } from './support/evm.ts';
import { assertLedgerOk } from './support/foundation.ts';
import { type Harness, storeTargets } from './support/harness.ts';
import { as, call, signupUser } from './support/http.ts';
import { softPasskey } from './support/soft-passkey.ts';

const probe = await anvilAvailable();
const USDC = 1_000_000n;
const [A, B, C, D] = ['a1', 'b2', 'c3', 'd4'].map((x) => `0x${x.repeat(20)}` as Address) as [
  Address,
  Address,
  Address,
  Address,
];

for (const target of await storeTargets()) {
  describe(`owners' signatures on ${target.name}`, {
    skip: probe.available ? target.skip : probe.skip,
  }, () => {
    let world: EvmWorld;
    let h: Harness;
    let account: Address;
    const rail = () => h.services.chain!.rail;
    const deps = (): OwnersDeps => ({
      ctx: { store: h.services.store, writer: h.services.writer, clock: h.clock, books: undefined as never },
      client: rail().client,
      config: rail().config,
      keys: rail().keys,
    });
    const rounds = async (n: number) => {
      for (let i = 0; i < n; i += 1) {
        await h.services.chain!.duties.send();
        await mine(world.anvil, 1);
      }
    };
    type Request = Awaited<ReturnType<typeof createOwnersRequest>>;
    const sign = (owner: (typeof owners)[number], request: Request) =>
      owner.signTypedData(request.signRequest.typedData as never) as Promise<Hex>;
    const requestOf = (transactionId: string) =>
      h.services.store.db
        .selectFrom('treasury_signature_requests')
        .select('id')
        .where('transaction_id', '=', transactionId)
        .executeTakeFirstOrThrow();
    const statusOf = async (id: string) =>
      (
        await h.services.store.db
          .selectFrom('treasury_signature_requests')
          .select('status')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).status;

    before(async () => {
      ({ world, h, account } = await startBoundedWorld(target.name, 'owners_signatures', {
        allowance: '100',
        floatMax: '40',
        fundMicros: 1_000n * USDC,
        env: { WITHDRAWAL_ADDRESS_DELAY_SECONDS: '0' },
      }));
    });
    after(async () => {
      await h?.close();
      await world?.anvil.stop();
    });

    test('two requests above the allowance: each waits for two owners, both execute in the order they are signed', async () => {
      const first = await createOwnersRequest(deps(), {
        kind: 'transfer',
        toAddress: A,
        amountMicros: 150n * USDC,
      });
      const second = await createOwnersRequest(deps(), {
        kind: 'transfer',
        toAddress: B,
        amountMicros: 170n * USDC,
      });
      assert.equal(first.status, 'awaiting_signatures');
      assert.equal(first.signaturesNeeded, 2);
      assert.equal(first.amount, '150.000000');
      assert.equal(first.signRequest.typedData.domain.verifyingContract, account);
      assert.notEqual(first.signRequest.typedData.message.nonce, second.signRequest.typedData.message.nonce);
      assert.equal(
        first.signRequest.typedData.message.gasFees,
        `0x${'0'.repeat(64)}`,
        'the account pays no gas',
      );

      const half = await addOwnerSignature(deps(), second.id, await sign(owners[1]!, second));
      assert.equal(half.status, 'awaiting_signatures');
      assert.equal(half.signaturesNeeded, 1);
      assert.deepEqual(half.signedBy, [getAddress(owners[1]!.address)]);
      await rounds(2);
      assert.equal(await world.usdc.balanceOf(B), 0n, 'one owner is not enough');
      const done = await addOwnerSignature(deps(), second.id, await sign(owners[2]!, second));
      assert.equal(done.status, 'submitted');
      await rounds(3);
      assert.equal(await statusOf(second.id), 'completed');
      assert.equal(await world.usdc.balanceOf(B), 170n * USDC);

      await addOwnerSignature(deps(), first.id, await sign(owners[2]!, first));
      await addOwnerSignature(deps(), first.id, await sign(owners[0]!, first));
      await rounds(3);
      assert.equal(await statusOf(first.id), 'completed');
      assert.equal(
        await world.usdc.balanceOf(A),
        150n * USDC,
        'the earlier request, signed later, executes too',
      );
    });

    test("a non-owner's signature, one over another request, and a second from the same owner are refused", async () => {
      const one = await createOwnersRequest(deps(), {
        kind: 'transfer',
        toAddress: C,
        amountMicros: 5n * USDC,
      });
      const other = await createOwnersRequest(deps(), {
        kind: 'transfer',
        toAddress: C,
        amountMicros: 6n * USDC,
      });
      const serviceKey = mnemonicToAccount(world.mnemonic, { addressIndex: 0 });
      const refused = (signature: Promise<Hex>, message: RegExp) =>
        assert.rejects(
          signature.then((s) => addOwnerSignature(deps(), one.id, s)),
          (e: unknown) => e instanceof SignatureRefused && message.test(e.message),
        );
      await refused(serviceKey.signTypedData(one.signRequest.typedData as never), /not an owner's signature/);
      await refused(sign(owners[0]!, other), /not an owner's signature over this request/);
      await addOwnerSignature(deps(), one.id, await sign(owners[0]!, one));
      await refused(sign(owners[0]!, one), /has signed already/);
      assert.equal(await statusOf(one.id), 'awaiting_signatures');
      await rounds(2);
      assert.equal(await world.usdc.balanceOf(C), 0n);
    });

    test('two instances hand in the last signatures at once: submitted once, paid once', async () => {
      const request = await createOwnersRequest(deps(), {
        kind: 'transfer',
        toAddress: D,
        amountMicros: 9n * USDC,
      });
      await addOwnerSignature(deps(), request.id, await sign(owners[0]!, request));
      const [x, y] = await Promise.all([
        addOwnerSignature(deps(), request.id, await sign(owners[1]!, request)),
        addOwnerSignature(deps(), request.id, await sign(owners[2]!, request)),
      ]);
      assert.deepEqual([x.status, y.status], ['submitted', 'submitted']);
      const rows = await h.services.store.db
        .selectFrom('chain_outbox')
        .select('id')
        .where('kind', '=', 'owners_op')
        .where('to_address', '=', D.toLowerCase())
        .execute();
      assert.equal(rows.length, 1, 'one submission');
      await rounds(3);
      assert.equal(await world.usdc.balanceOf(D), 9n * USDC);
    });

    test('a call the account cannot make ends failed, nothing moved', async () => {
      const before = await world.usdc.balanceOf(account);
      const request = await createOwnersRequest(deps(), {
        kind: 'transfer',
        toAddress: A,
        amountMicros: before + 1n,
      });
      await addOwnerSignature(deps(), request.id, await sign(owners[0]!, request));
      await addOwnerSignature(deps(), request.id, await sign(owners[1]!, request));
      await rounds(3);
      assert.equal(await statusOf(request.id), 'failed');
      assert.equal(await world.usdc.balanceOf(account), before);
    });

    test('a withdrawal above the allowance: 202 awaiting_signatures, two owners sign over HTTP, paid once by the account', async () => {
      const owner = await signupUser(h.app);
      const master = (await owner.api.get('/api/v1/wallet')).body.data;
      await world.usdc.mint(master.address, 300n * USDC);
      await mine(world.anvil, 1);
      await h.services.chain!.duties.watchDeposits();
      await rounds(2);
      const recipient = `0x${'e7'.repeat(20)}` as Address;
      const added = await owner.api.post('/api/v1/wallet/withdrawal-addresses', {
        address: recipient,
        label: 'cold',
      });
      assert.equal(added.status, 201, added.raw);
      const accountBefore = await world.usdc.balanceOf(account);
      const asked = await owner.api.post('/api/v1/wallet/withdrawals', {
        toAddress: recipient,
        amount: '250',
      });
      assert.equal(asked.status, 202, asked.raw);
      const { id, status, signRequest, signaturesNeeded } = asked.body.data;
      assert.equal(status, 'awaiting_signatures');
      assert.equal(signaturesNeeded, 2);
      assert.equal(signRequest.typedData.domain.verifyingContract, account);
      const shown = await owner.api.get(`/api/v1/wallet/withdrawals/${id}`);
      assert.equal(shown.body.data.status, 'processing', 'the money is held while the owners sign');
      assert.equal((await owner.api.get('/api/v1/wallet')).body.data.balance, '50.000000');
      await rounds(2);
      assert.equal(await world.usdc.balanceOf(recipient), 0n, 'nothing moves before the owners sign');

      const hand = (signature: Hex) =>
        owner.api.post('/api/v1/wallet/treasury/signatures', { id, signature });
      const serviceKey = mnemonicToAccount(world.mnemonic, { addressIndex: 0 });
      const forged = await hand(await serviceKey.signTypedData(signRequest.typedData));
      assert.equal(forged.status, 400, forged.raw);
      assert.equal(forged.body.error.code, 'VALIDATION_ERROR');
      const stranger = await signupUser(h.app);
      const elsewhere = await stranger.api.post('/api/v1/wallet/treasury/signatures', {
        id,
        signature: await owners[0]!.signTypedData(signRequest.typedData),
      });
      assert.equal(elsewhere.status, 404, 'another organization’s withdrawal is not there for it');
      // A MultiSigDeleGator's owners sign with their keys: a passkey signs for a hybrid account only.
      const byPasskey = await owner.api.post('/api/v1/wallet/treasury/signatures', {
        id,
        passkey: softPasskey().assert({ challenge: 'AAAA' }),
      });
      assert.equal(byPasskey.status, 400, byPasskey.raw);
      assert.match(byPasskey.body.error.message, /TREASURY_ACCOUNT_KIND=hybrid/);
      const passkeyOptions = await owner.api.post('/api/v1/wallet/treasury/signatures/passkey-options', {
        id,
      });
      assert.equal(passkeyOptions.status, 400, passkeyOptions.raw);
      const first = await hand(await owners[0]!.signTypedData(signRequest.typedData));
      assert.equal(first.status, 200, first.raw);
      assert.equal(first.body.data.signaturesNeeded, 1);
      const again = await hand(await owners[0]!.signTypedData(signRequest.typedData));
      assert.equal(again.status, 409, again.raw);
      const second = await hand(await owners[2]!.signTypedData(signRequest.typedData));
      assert.equal(second.body.data.status, 'submitted');
      await rounds(3);
      const done = (await owner.api.get(`/api/v1/wallet/withdrawals/${id}`)).body.data;
      assert.equal(done.status, 'completed');
      assert.match(done.txHash, /^0x[0-9a-f]{64}$/);
      assert.equal(await world.usdc.balanceOf(recipient), 250n * USDC, 'paid once');
      assert.equal(accountBefore - (await world.usdc.balanceOf(account)) >= 250n * USDC, true);
      await assertLedgerOk(h);
      const proof = await reconcileChain(
        h.services.store.db,
        rail().client,
        rail().config,
        rail().keys.treasury.address.toLowerCase(),
        account,
      );
      assert.ok(proof.ok, proof.problems.join('; '));
    });

    test('a withdrawal the owners never sign fails after 7 days, its money back; a late signature changes nothing', async () => {
      const owner = await signupUser(h.app);
      const master = (await owner.api.get('/api/v1/wallet')).body.data;
      await world.usdc.mint(master.address, 120n * USDC);
      await mine(world.anvil, 1);
      await h.services.chain!.duties.watchDeposits();
      await rounds(2);
      const recipient = `0x${'e8'.repeat(20)}` as Address;
      await owner.api.post('/api/v1/wallet/withdrawal-addresses', { address: recipient, label: 'cold' });
      const asked = await owner.api.post('/api/v1/wallet/withdrawals', {
        toAddress: recipient,
        amount: '110',
      });
      assert.equal(asked.status, 202, asked.raw);
      const { id, signRequest } = asked.body.data;
      assert.equal((await owner.api.get('/api/v1/wallet')).body.data.balance, '10.000000');
      await addOwnerSignature(deps(), id, await sign(owners[0]!, { signRequest } as Request));
      h.clock.advanceMs(OWNERS_SIGNATURES_MAX_AGE_MS - 60_000);
      await rounds(1);
      assert.equal(await statusOf((await requestOf(id)).id), 'awaiting_signatures', 'not yet');
      h.clock.advanceMs(120_000);
      await rounds(1);
      // A week on, the session has expired: sign in again.
      const login = await call(h.app, 'POST', '/api/v1/auth/login', {
        email: owner.email,
        password: owner.password,
      });
      assert.equal(login.status, 200, login.raw);
      owner.api = as(h.app, login.body.data.token);
      const ended = (await owner.api.get(`/api/v1/wallet/withdrawals/${id}`)).body.data;
      assert.equal(ended.status, 'failed');
      assert.equal(
        (await owner.api.get('/api/v1/wallet')).body.data.balance,
        '120.000000',
        'the money is back',
      );
      const late = await owner.api.post('/api/v1/wallet/treasury/signatures', {
        id,
        signature: await sign(owners[1]!, { signRequest } as Request),
      });
      assert.equal(late.status, 200, late.raw);
      assert.equal(late.body.data.status, 'failed');
      await rounds(2);
      assert.equal(await world.usdc.balanceOf(recipient), 0n, 'nothing was paid');
      await assertLedgerOk(h);
    });

    test('the owners revoke the service’s delegation: the chain counts nothing left, no refill follows', async () => {
      const shape = shapeOf(rail().config, rail().keys);
      const stored = (await activeDelegation(h.services.store.db, rail().client, rail().config, shape))!;
      const request = await createOwnersRequest(deps(), { kind: 'revoke', delegation: stored.delegation });
      await addOwnerSignature(deps(), request.id, await sign(owners[2]!, request));
      await addOwnerSignature(deps(), request.id, await sign(owners[1]!, request));
      await rounds(3);
      assert.equal(await statusOf(request.id), 'completed');
      const reading = await rail().treasury.refresh();
      assert.equal(reading!.bounded!.remainingMicros, 0n);
      const floatBefore = await world.usdc.balanceOf(rail().keys.treasury.address);
      const accountBefore = await world.usdc.balanceOf(account);
      await rounds(3);
      assert.equal(await world.usdc.balanceOf(account), accountBefore, 'no redemption after the revocation');
      assert.equal(await world.usdc.balanceOf(rail().keys.treasury.address), floatBefore);
    });
  });
}
