// The owners change their owners and threshold (bounded mode, POST /wallet/treasury/owners) on anvil with the
// framework's npm bytecode: the change is an operation of their account signed by the owners it has now, at its
// threshold now; asked twice while it waits, it is one request; once confirmed the chain's owners are the ones
// whose signatures count — a removed owner is refused, a new one signs a withdrawal above the allowance alone at
// the new threshold — GET /wallet/treasury shows them, and a restart with TREASURY_ACCOUNT unset is refused; a
// change the owners make with another tool is followed too (the account is read again before a refusal).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MultiSigDeleGator } from '@metamask/delegation-abis';
import { type Address, getAddress, type Hex } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { checkComputedAccount, updateOwnersCallData } from '../src/chain/bounded/owners-chain.ts';
import { OwnersChangeRefused, ownersChangeRequest } from '../src/chain/bounded/owners-change.ts';
import { ANVIL_MNEMONIC, anvilAvailable, mine } from './support/anvil.ts';
import {
  accountOperation,
  awaitingWithdrawal,
  type Framework,
  owners,
  startBoundedWorld,
} from './support/bounded.ts';
import type { EvmWorld } from './support/evm.ts';
import { assertLedgerOk } from './support/foundation.ts';
import { type Harness, storeTargets } from './support/harness.ts';
import { addMember, expectError, signupUser, stepUpWithPassword, type TestUser } from './support/http.ts';

const probe = await anvilAvailable();
const USDC = 1_000_000n;
const STEP_UP_AGE_SECONDS = 300;
const URL = '/api/v1/wallet/treasury/owners';
const SIGNATURES = '/api/v1/wallet/treasury/signatures';
/** The new owner: an anvil key that is not one of the account's owners yet. */
const newOwner = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 4 });
const [A, B, C] = [owners[0]!, owners[1]!, owners[2]!];
const RECIPIENT = '0x00000000000000000000000000000000000c01d0' as Address;
const OTHER_RECIPIENT = '0x00000000000000000000000000000000000c01d1' as Address;

for (const target of await storeTargets()) {
  describe(`the owners change their owners on ${target.name}`, {
    skip: probe.available ? target.skip : probe.skip,
  }, () => {
    let world: EvmWorld;
    let h: Harness;
    let account: Address;
    let owner: TestUser;
    let framework: Framework;
    const rail = () => h.services.chain!.rail;
    const rounds = async (n: number) => {
      for (let i = 0; i < n; i += 1) {
        await h.services.chain!.duties.send();
        await mine(world.anvil, 1);
      }
    };
    const ownerRows = () =>
      h.services.store.db
        .selectFrom('treasury_signature_requests')
        .select(['id', 'status', 'signatures_needed'])
        .where('kind', '=', 'owners')
        .execute();
    const onChain = async () => {
      const read = (functionName: 'getSigners' | 'getThreshold') =>
        rail().client.readContract({ address: account, abi: MultiSigDeleGator, functionName });
      const signers = (await read('getSigners')) as readonly Address[];
      return { signers: signers.map((s) => s.toLowerCase()).sort(), threshold: await read('getThreshold') };
    };
    const readDeps = () => ({
      db: h.services.store.db,
      client: rail().client,
      config: rail().config,
      keys: rail().keys,
    });

    before(async () => {
      ({ world, h, account, framework } = await startBoundedWorld(target.name, 'treasury_owners', {
        allowance: '100',
        floatMax: '40',
        fundMicros: 1_000n * USDC,
        env: { WITHDRAWAL_ADDRESS_DELAY_SECONDS: '0' },
      }));
      owner = await signupUser(h.app);
    });
    after(async () => {
      await h?.close();
      await world?.anvil.stop();
    });

    test('a change the account cannot take, or that changes nothing, is refused and stores nothing', async () => {
      const refused = async (body: unknown, status: number, code: string, pattern: RegExp) => {
        const reply = await owner.api.post(URL, body);
        expectError(reply, status, code);
        assert.match(reply.body.error.message, pattern);
      };
      await refused(
        { owners: [A.address, A.address.toLowerCase()], threshold: 1 },
        400,
        'VALIDATION_ERROR',
        /twice/,
      );
      await refused({ owners: [A.address, B.address], threshold: 3 }, 400, 'VALIDATION_ERROR', /threshold/);
      await refused({ owners: [A.address], threshold: 0 }, 400, 'VALIDATION_ERROR', /threshold/);
      await refused({ owners: [], threshold: 1 }, 400, 'VALIDATION_ERROR', /owners/);
      const many = Array.from({ length: 17 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, '0')}`);
      await refused({ owners: many, threshold: 1 }, 400, 'VALIDATION_ERROR', /owners/);
      await refused({ owners: [A.address, 'nope'], threshold: 1 }, 400, 'VALIDATION_ERROR', /owners/);
      await refused({ owners: [account], threshold: 1 }, 400, 'VALIDATION_ERROR', /its own owner/);
      await refused(
        { owners: [C.address, A.address, B.address], threshold: 2 },
        409,
        'INVALID_STATE',
        /already/,
      );
      const { member: admin } = await addMember(h.app, owner, 'admin');
      expectError(await admin.api.post(URL, { owners: [A.address], threshold: 1 }), 403, 'FORBIDDEN_ROLE');
      h.clock.advanceSeconds(STEP_UP_AGE_SECONDS + 1);
      expectError(await owner.api.post(URL, { owners: [A.address], threshold: 1 }), 403, 'STEP_UP_REQUIRED');
      await stepUpWithPassword(owner);
      // A hybrid account (one owner's key and passkeys, any one signs) has no owners list to change.
      const config = rail().config;
      const hybrid = { ...config, bounded: { ...config.bounded!, accountKind: 'hybrid' as const } };
      const deps = {
        ctx: {
          store: h.services.store,
          writer: h.services.writer,
          clock: h.clock,
          books: undefined as never,
        },
        client: rail().client,
        config: hybrid,
        keys: rail().keys,
      };
      await assert.rejects(
        ownersChangeRequest(deps, { owners: [A.address], threshold: 1 }),
        (error) => error instanceof OwnersChangeRefused && /hybrid/.test(error.message),
      );
      assert.deepEqual(await ownerRows(), []);
    });

    test('owners A, B, C at 2 → A and a new owner at 1: signed by the current owners, then only the new ones count', async () => {
      const body = { owners: [A.address, newOwner.address], threshold: 1 };
      // Asked twice at once (two tabs, two instances): one request.
      const [asked, twin] = await Promise.all([owner.api.post(URL, body), owner.api.post(URL, body)]);
      assert.equal(asked.status, 202, asked.raw);
      assert.equal(twin.status, 202, twin.raw);
      assert.equal(twin.body.data.id, asked.body.data.id, 'asked at once: the same request');
      const { id, status, signRequest, signaturesNeeded } = asked.body.data;
      assert.equal(status, 'awaiting_signatures');
      assert.equal(signaturesNeeded, 2, 'the threshold the account has now');
      assert.equal(signRequest.typedData.domain.verifyingContract, account);
      const again = await owner.api.post(URL, {
        owners: [newOwner.address.toLowerCase(), A.address],
        threshold: 1,
      });
      assert.equal(again.status, 202, again.raw);
      assert.equal(again.body.data.id, id, 'the same change asked again: the same waiting request');
      assert.equal((await ownerRows()).length, 1);
      // Listed for the owners with what it makes the account hold, read from the call they sign.
      const listed = (await owner.api.get(`${SIGNATURES}?status=awaiting_signatures`)).body.data.items;
      const mine = listed.find((r: { id: string }) => r.id === id);
      assert.equal(mine.kind, 'owners');
      assert.deepEqual(mine.change, {
        owners: [A.address, newOwner.address]
          .map((a) => getAddress(a))
          .sort((x, y) => (x.toLowerCase() < y.toLowerCase() ? -1 : 1)),
        threshold: 1,
      });
      assert.equal(mine.amount, null);

      const hand = async (signer: typeof A, request: { id: string; signRequest: typeof signRequest }) =>
        owner.api.post(SIGNATURES, {
          id: request.id,
          signature: (await signer.signTypedData(request.signRequest.typedData)) as Hex,
        });
      const byNew = await hand(newOwner, { id, signRequest });
      expectError(byNew, 400, 'VALIDATION_ERROR');
      const first = await hand(A, { id, signRequest });
      assert.equal(first.status, 200, first.raw);
      assert.equal(first.body.data.signaturesNeeded, 1);
      await rounds(2);
      assert.equal((await onChain()).signers.length, 3, 'one owner cannot change the owners');
      const second = await hand(B, { id, signRequest });
      assert.equal(second.body.data.status, 'submitted');
      await rounds(3);
      assert.deepEqual(await ownerRows(), [{ id, status: 'completed', signatures_needed: 2n }]);
      assert.deepEqual(await onChain(), {
        signers: [A.address, newOwner.address].map((a) => a.toLowerCase()).sort(),
        threshold: 1n,
      });

      const view = (await owner.api.get('/api/v1/wallet/treasury')).body.data;
      assert.deepEqual(
        [...view.owners].sort(),
        [A.address, newOwner.address].map((a) => getAddress(a)).sort(),
        "the chain's owners, not TREASURY_OWNERS",
      );
      assert.equal(view.threshold, 1);
      assert.equal(view.account, getAddress(account), 'the account keeps its address');

      // A withdrawal the allowance cannot cover: one signature of the new owners is the threshold now.
      const waiting = await awaitingWithdrawal(h, world, owner, '150', RECIPIENT);
      assert.equal((waiting as unknown as { signaturesNeeded: number }).signaturesNeeded, 1);
      expectError(await hand(B, waiting as never), 400, 'VALIDATION_ERROR');
      const byNewOwner = await hand(newOwner, waiting as never);
      assert.equal(byNewOwner.status, 200, byNewOwner.raw);
      assert.equal(byNewOwner.body.data.status, 'submitted');
      await rounds(3);
      assert.equal(await world.usdc.balanceOf(RECIPIENT), 150n * USDC);
      const withdrawal = (await owner.api.get(`/api/v1/wallet/withdrawals/${waiting.id}`)).body.data;
      assert.equal(withdrawal.status, 'completed');
      await assertLedgerOk(h);
    });

    test('after a change, a start that would compute the account from TREASURY_OWNERS is refused', async () => {
      await assert.rejects(
        checkComputedAccount(readDeps()),
        new RegExp(`TREASURY_ACCOUNT=${account.toLowerCase()}`),
      );
      const config = rail().config;
      const adopted = {
        ...config,
        bounded: { ...config.bounded!, account: account.toLowerCase() as Address },
      };
      await checkComputedAccount({ ...readDeps(), config: adopted });
    });

    test('a change the owners made with another tool: a new owner is read from the account, not refused', async () => {
      // The account's owners (A and the new owner, threshold 1) replace the new owner with C themselves.
      const change = {
        owners: [A.address, C.address].map((a) => a.toLowerCase() as Address).sort(),
        threshold: 1,
      };
      await accountOperation(world, framework, account, updateOwnersCallData(change), [A]);
      const waiting = await awaitingWithdrawal(h, world, owner, '150', OTHER_RECIPIENT);
      const signed = await owner.api.post(SIGNATURES, {
        id: waiting.id,
        signature: await C.signTypedData(waiting.signRequest.typedData),
      });
      assert.equal(signed.status, 200, signed.raw);
      assert.equal(signed.body.data.status, 'submitted');
      await rounds(3);
      assert.equal(await world.usdc.balanceOf(OTHER_RECIPIENT), 150n * USDC);
      const view = (await owner.api.get('/api/v1/wallet/treasury')).body.data;
      assert.deepEqual([...view.owners].sort(), [getAddress(A.address), getAddress(C.address)].sort());
    });
  });
}
