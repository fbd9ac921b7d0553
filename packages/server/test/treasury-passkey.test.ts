// An owner's passkey guards the treasury (bounded mode, TREASURY_ACCOUNT_KIND=hybrid): a software WebAuthn
// authenticator enrols through the real routes; the HybridDeleGator account is created from the passkeys the owner
// enrolled (COSE key → x, y; key id = credential id) at the address the configuration names; the delegation is
// granted with a passkey assertion; a withdrawal above the allowance waits (202), the passkey signs it through
// the signatures route and the framework's bytecode on anvil accepts it: paid once, ledger and chain agree. An
// assertion from a passkey the account does not hold, or over another request, is refused (400) — and the
// account itself refuses it on chain. The owner's address signs as well (any one key of a hybrid account).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Address, type Hex, hexToBytes } from 'viem';
import { FRAMEWORK_VARIABLES, HYBRID_IMPL_VARIABLE } from '../src/chain/bounded/bounded-config.ts';
import { enrolledP256Keys, grantDelegation, prepareDelegation } from '../src/chain/bounded/bounded-setup.ts';
import { hybridAccount } from '../src/chain/bounded/delegation.ts';
import {
  accountAccepts,
  challengeOf,
  encodeWebAuthnSignature,
  p256KeyOf,
} from '../src/chain/bounded/passkey-signature.ts';
import { serviceKeys } from '../src/chain/keys.ts';
import { reconcileChain } from '../src/chain/reconcile/reconcile.ts';
import { anvilAvailable, mine } from './support/anvil.ts';
import { deployFrameworkFor, owners } from './support/bounded.ts';
import { type EvmWorld, evmEnv, startEvmWorld } from './support/evm.ts';
import { assertLedgerOk } from './support/foundation.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { signupUser, type TestUser } from './support/http.ts';
import { POSTGRES_URL } from './support/services.ts';
import { type SoftPasskey, softPasskey } from './support/soft-passkey.ts';

const probe = await anvilAvailable();
const CLI = resolve(import.meta.dirname, '../bin/agent-wallet.js');

function cli(args: string[], env: Record<string, string>) {
  const run = spawnSync(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

/** The harness's store for a command of the CLI: its PostgreSQL schema, or its data directory's SQLite file. */
const storeEnv = (h: Harness): Record<string, string> =>
  h.postgresSchema === undefined ? {} : { DATABASE_URL: POSTGRES_URL };
const schemaFlag = (h: Harness) => (h.postgresSchema === undefined ? [] : ['--schema', h.postgresSchema]);
const USDC = 1_000_000n;

/** Enrols `passkey` for `user` through the routes a browser uses. */
async function enrol(user: TestUser, passkey: SoftPasskey, label: string): Promise<void> {
  const options = await user.api.post('/api/v1/auth/passkeys/registration-options');
  assert.equal(options.status, 200, options.raw);
  const added = await user.api.post('/api/v1/auth/passkeys', passkey.register(options.body.data, label));
  assert.equal(added.status, 201, added.raw);
}

/** The assertion's parts as the account's verifier reads them. */
function partsOf(assertion: object) {
  const { id, response } = assertion as {
    id: string;
    response: { authenticatorData: string; clientDataJSON: string; signature: string };
  };
  return {
    keyId: id,
    authenticatorData: new Uint8Array(Buffer.from(response.authenticatorData, 'base64url')),
    clientDataJSON: Buffer.from(response.clientDataJSON, 'base64url').toString('utf8'),
    signature: new Uint8Array(Buffer.from(response.signature, 'base64url')),
  };
}

for (const target of await storeTargets()) {
  describe(`a passkey-owned treasury on ${target.name}`, {
    skip: probe.available ? target.skip : probe.skip,
  }, () => {
    let world: EvmWorld;
    let h: Harness;
    let owner: TestUser;
    let account: Address;
    const passkey = softPasskey();
    /** The same person's second passkey, enrolled after the account was made: not one of its keys. */
    const later = softPasskey();
    const eoa = owners[0]!;
    const rail = () => h.services.chain!.rail;
    const rounds = async (n: number) => {
      for (let i = 0; i < n; i += 1) {
        await h.services.chain!.duties.send();
        await mine(world.anvil, 1);
      }
    };

    before(async () => {
      world = await startEvmWorld();
      const framework = await deployFrameworkFor(world);
      assert.match(framework.env.HYBRID_DELEGATOR_ADDRESS!, /^0x[0-9a-fA-F]{40}$/);
      // The account's address follows from its keys: computed here from the soft passkey's own key, configured,
      // and later created by the service from what the routes stored — one address only if the COSE key was read
      // right.
      const service = serviceKeys(world.mnemonic).treasury.address.toLowerCase() as Address;
      account = hybridAccount(
        framework.env.DELEGATION_FACTORY_ADDRESS as Address,
        framework.env.HYBRID_DELEGATOR_ADDRESS as Address,
        eoa.address.toLowerCase() as Address,
        [{ keyId: passkey.credentialId, ...passkey.point }],
        service,
      ).address;
      h = await startHarness(target.name, 'treasury_passkey', {
        env: evmEnv(world, {
          ...framework.env,
          CONFIRMATIONS: '1',
          WITHDRAWAL_ADDRESS_DELAY_SECONDS: '0',
          TREASURY_MODE: 'bounded',
          TREASURY_ACCOUNT_KIND: 'hybrid',
          TREASURY_ACCOUNT: account,
          TREASURY_OWNERS: eoa.address,
          TREASURY_ALLOWANCE: '100',
          TREASURY_FLOAT_MAX: '40',
        }),
      });
      owner = await signupUser(h.app);
      await enrol(owner, passkey, 'laptop');
    });
    after(async () => {
      await h?.close();
      await world?.anvil.stop();
    });

    test('the account is created from the passkeys the owner enrolled, and a passkey grants the delegation', async () => {
      const keys = await enrolledP256Keys(h.services.store.db, owner.email, p256KeyOf);
      assert.deepEqual(keys, [{ keyId: passkey.credentialId, ...passkey.point }]);
      // `agent-wallet treasury-create-hybrid`, as an operator runs it, on the service's database.
      const created = cli(
        ['treasury-create-hybrid', '--email', owner.email, '--owner', eoa.address, ...schemaFlag(h)],
        { ...evmEnv(world, frameworkEnv(h)), DATA_DIR: h.dataDir, ...storeEnv(h) },
      );
      assert.equal(created.code, 0, created.err);
      const lines = created.out.trim().split('\n').slice(-3);
      assert.deepEqual(
        lines,
        [
          'TREASURY_ACCOUNT_KIND=hybrid',
          `TREASURY_ACCOUNT=${account}`,
          `TREASURY_OWNERS=${eoa.address.toLowerCase()}`,
        ],
        'the configured address is the one created',
      );
      assert.notEqual(await rail().client.getCode({ address: account }), undefined);
      const deps = {
        db: h.services.store.db,
        client: rail().client,
        config: rail().config,
        keys: rail().keys,
      };
      const prepared = await prepareDelegation(deps);
      assert.equal(prepared.threshold, 1);
      const assertion = passkey.assert({ challenge: challengeOf(prepared.digest) });
      await grantDelegation(
        deps,
        { delegation: prepared.delegation, signatures: [{ passkey: assertion as never }] },
        h.clock.nowMs(),
      );
      await world.usdc.mint(account, 1_000n * USDC);
      const reading = await rail().treasury.refresh();
      assert.equal(reading!.bounded!.remainingMicros, 100n * USDC, 'the delegation is the active one');
    });

    test('a withdrawal above the allowance: 202, the passkey signs it, the account pays once; ledger and chain agree', async () => {
      await enrol(owner, later, 'phone');
      const master = (await owner.api.get('/api/v1/wallet')).body.data;
      await world.usdc.mint(master.address, 500n * USDC);
      await mine(world.anvil, 1);
      await h.services.chain!.duties.watchDeposits();
      await rounds(2);
      const recipient = `0x${'e9'.repeat(20)}` as Address;
      await owner.api.post('/api/v1/wallet/withdrawal-addresses', { address: recipient, label: 'cold' });
      const withdraw = (amount: string) =>
        owner.api.post('/api/v1/wallet/withdrawals', { toAddress: recipient, amount });
      const asked = await withdraw('250');
      assert.equal(asked.status, 202, asked.raw);
      const { id, signRequest, signaturesNeeded } = asked.body.data;
      assert.equal(signaturesNeeded, 1, 'any one key of a hybrid account signs');
      assert.equal(signRequest.typedData.domain.name, 'HybridDeleGator');
      const other = await withdraw('200');
      assert.equal(other.status, 202, other.raw);

      const options = await owner.api.post('/api/v1/wallet/treasury/signatures/passkey-options', { id });
      assert.equal(options.status, 200, options.raw);
      assert.equal(options.body.data.challenge, challengeOf(signRequest.digest));
      assert.deepEqual(
        options.body.data.allowCredentials.map((c: { id: string }) => c.id),
        [passkey.credentialId],
        'only the passkeys the account holds are offered',
      );

      const hand = (assertion: object) =>
        owner.api.post('/api/v1/wallet/treasury/signatures', { id, passkey: assertion });
      // A passkey of the owner's that the account does not hold: verified as theirs, refused as no key of the account.
      const notHeld = later.assert(options.body.data);
      const refusedKey = await hand(notHeld);
      assert.equal(refusedKey.status, 400, refusedKey.raw);
      assert.match(refusedKey.body.error.message, /not one of the account's keys/);
      // The right passkey over another request.
      const otherDigest = other.body.data.signRequest.digest as Hex;
      const elsewhere = passkey.assert({ challenge: challengeOf(otherDigest) });
      const refusedRequest = await hand(elsewhere);
      assert.equal(refusedRequest.status, 400, refusedRequest.raw);
      assert.equal(refusedRequest.body.error.code, 'VALIDATION_ERROR');
      // The account itself refuses both on chain.
      const client = rail().client;
      assert.equal(
        await accountAccepts(client, account, signRequest.digest, encodeWebAuthnSignature(partsOf(notHeld))),
        false,
      );
      assert.equal(
        await accountAccepts(
          client,
          account,
          signRequest.digest,
          encodeWebAuthnSignature(partsOf(elsewhere)),
        ),
        false,
      );
      await rounds(2);
      assert.equal(await world.usdc.balanceOf(recipient), 0n, 'nothing moved');

      const accountBefore = await world.usdc.balanceOf(account);
      const signed = await hand(passkey.assert(options.body.data));
      assert.equal(signed.status, 200, signed.raw);
      assert.equal(signed.body.data.status, 'submitted');
      assert.deepEqual(signed.body.data.signedBy, [`passkey:${passkey.credentialId}`]);
      const again = await hand(passkey.assert(options.body.data));
      assert.equal(again.status, 200, 'a submitted request answers its state');
      await rounds(3);
      const done = (await owner.api.get(`/api/v1/wallet/withdrawals/${id}`)).body.data;
      assert.equal(done.status, 'completed');
      assert.equal(await world.usdc.balanceOf(recipient), 250n * USDC, 'paid once');
      assert.equal(accountBefore - (await world.usdc.balanceOf(account)), 250n * USDC);

      // The other withdrawal: the owner's address signs (eth_signTypedData_v4), the same account, any one key.
      const typed = other.body.data.signRequest.typedData;
      const byKey = await owner.api.post('/api/v1/wallet/treasury/signatures', {
        id: other.body.data.id,
        signature: await eoa.signTypedData(typed),
      });
      assert.equal(byKey.status, 200, byKey.raw);
      assert.equal(byKey.body.data.status, 'submitted');
      await rounds(3);
      assert.equal(await world.usdc.balanceOf(recipient), 450n * USDC);
      await assertLedgerOk(h);
      const proof = await reconcileChain(
        h.services.store.db,
        client,
        rail().config,
        rail().keys.treasury.address.toLowerCase(),
        account,
      );
      assert.ok(proof.ok, proof.problems.join('; '));
    });

    test('another person’s passkey, handed in by the owner, is refused; a stranger sees no request', async () => {
      const stranger = await signupUser(h.app);
      const theirs = softPasskey();
      await enrol(stranger, theirs, 'theirs');
      const recipient = `0x${'ea'.repeat(20)}` as Address;
      await owner.api.post('/api/v1/wallet/withdrawal-addresses', { address: recipient, label: 'cold 2' });
      const master = (await owner.api.get('/api/v1/wallet')).body.data;
      await world.usdc.mint(master.address, 200n * USDC);
      await mine(world.anvil, 1);
      await h.services.chain!.duties.watchDeposits();
      await rounds(2);
      const asked = await owner.api.post('/api/v1/wallet/withdrawals', {
        toAddress: recipient,
        amount: '150',
      });
      assert.equal(asked.status, 202, asked.raw);
      const { id, signRequest } = asked.body.data;
      const challenge = { challenge: challengeOf(signRequest.digest) };
      const foreign = await owner.api.post('/api/v1/wallet/treasury/signatures', {
        id,
        passkey: theirs.assert(challenge),
      });
      assert.equal(foreign.status, 400, foreign.raw);
      const hidden = await stranger.api.post('/api/v1/wallet/treasury/signatures', {
        id,
        passkey: theirs.assert(challenge),
      });
      assert.equal(hidden.status, 404, hidden.raw);
      const noOptions = await stranger.api.post('/api/v1/wallet/treasury/signatures/passkey-options', { id });
      assert.equal(noOptions.status, 404, noOptions.raw);
      assert.equal(hexToBytes(signRequest.digest).length, 32);
    });
  });
}

/** The framework's variables as the harness was configured (the CLI reads them from the environment). */
function frameworkEnv(h: Harness): Record<string, string> {
  const bounded = h.config.evm!.bounded!;
  return {
    ...Object.fromEntries(
      Object.entries(FRAMEWORK_VARIABLES).map(([key, name]) => [
        name,
        bounded.framework[key as keyof typeof bounded.framework],
      ]),
    ),
    [HYBRID_IMPL_VARIABLE]: bounded.hybridImpl!,
  };
}
