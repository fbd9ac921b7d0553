// The on-chain test infrastructure itself: a private anvil, TestUSDC deployed on it, and the EIP-3009 behaviour
// the EVM payment rail relies on (gasless transferWithAuthorization signed with viem's signTypedData exactly as
// an x402 client signs it, replay and expiry protection, the `bytes signature` overload), the blacklist hook
// that makes a payout revert, and evm_snapshot/evm_revert as a re-org.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Address,
  type Chain,
  decodeEventLog,
  type Hex,
  hashDomain,
  keccak256,
  type LocalAccount,
  type PublicClient,
  parseSignature,
  type Transport,
  toHex,
  type WalletClient,
} from 'viem';
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import {
  type Anvil,
  anvilAvailable,
  anvilPublicClient,
  anvilWalletClient,
  confirm,
  deployTestUsdc,
  mine,
  revert,
  snapshot,
  startAnvil,
  type TestUsdc,
} from './support/anvil.ts';

const probe = await anvilAvailable();
const USDC = 1_000_000n;

const authorizationFields = [
  { name: 'from', type: 'address' },
  { name: 'to', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'validAfter', type: 'uint256' },
  { name: 'validBefore', type: 'uint256' },
  { name: 'nonce', type: 'bytes32' },
] as const;

// A type, not an interface: signTypedData wants a Record<string, unknown> message.
type Authorization = {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
};

describe('TestUSDC on a private anvil', {
  skip: probe.available ? false : probe.skip,
  timeout: 120_000,
}, () => {
  let anvil: Anvil;
  let usdc: TestUsdc;
  let publicClient: PublicClient<Transport, Chain>;
  /** Submits authorizations on the payer's behalf and pays their gas, as an x402 facilitator does. */
  let relayer: WalletClient<Transport, Chain, LocalAccount>;
  let payer: LocalAccount;
  const payee = privateKeyToAccount(generatePrivateKey()).address;

  before(async () => {
    anvil = await startAnvil();
    usdc = await deployTestUsdc(anvil);
    publicClient = usdc.publicClient;
    relayer = anvilWalletClient(anvil, mnemonicToAccount(anvil.mnemonic, { addressIndex: 8 }));
    // A fresh key that anvil never funded: it must not need ETH to pay.
    payer = privateKeyToAccount(generatePrivateKey());
    await usdc.mint(payer.address, 100n * USDC);
  });

  after(async () => {
    await anvil?.stop();
  });

  /** An authorization valid from the past until an hour after the chain's clock, with a fresh nonce. */
  async function authorization(
    value: bigint,
    overrides: Partial<Authorization> = {},
  ): Promise<Authorization> {
    const { timestamp } = await publicClient.getBlock();
    return {
      from: payer.address,
      to: payee,
      value,
      validAfter: 0n,
      validBefore: timestamp + 3600n,
      nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
      ...overrides,
    };
  }

  function sign(
    message: Authorization,
    signer: LocalAccount = payer,
    primaryType: 'TransferWithAuthorization' | 'ReceiveWithAuthorization' = 'TransferWithAuthorization',
  ): Promise<Hex> {
    return signer.signTypedData({
      domain: { name: 'USD Coin', version: '2', chainId: anvil.chainId, verifyingContract: usdc.address },
      types: { [primaryType]: authorizationFields },
      primaryType,
      message,
    });
  }

  const vrsArgs = (auth: Authorization, signature: Hex) => {
    const { v, r, s } = parseSignature(signature);
    return [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, Number(v), r, s];
  };

  async function submit(functionName: string, args: unknown[], by = relayer): Promise<Hex> {
    const hash = await by.writeContract({ address: usdc.address, abi: usdc.abi, functionName, args });
    await confirm(publicClient, hash, functionName);
    return hash;
  }

  const read = (functionName: string, args: unknown[] = []) =>
    publicClient.readContract({ address: usdc.address, abi: usdc.abi, functionName, args });

  it('deploys with USDC metadata and the FiatToken v2 EIP-712 domain and type hashes', async () => {
    assert.equal(await read('name'), 'USD Coin');
    assert.equal(await read('symbol'), 'USDC');
    assert.equal(await read('decimals'), 6);
    assert.equal(await read('version'), '2');
    assert.equal((await read('owner')) as Address, usdc.deployer.address);
    const domain = {
      name: 'USD Coin',
      version: '2',
      chainId: BigInt(anvil.chainId),
      verifyingContract: usdc.address,
    };
    assert.equal(
      await read('DOMAIN_SEPARATOR'),
      hashDomain({ domain, types: { EIP712Domain: eip712DomainFields } }),
    );
    const typeHash = (type: string) => keccak256(toHex(type));
    const fields =
      'address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce';
    assert.equal(
      await read('TRANSFER_WITH_AUTHORIZATION_TYPEHASH'),
      typeHash(`TransferWithAuthorization(${fields})`),
    );
    assert.equal(
      await read('RECEIVE_WITH_AUTHORIZATION_TYPEHASH'),
      typeHash(`ReceiveWithAuthorization(${fields})`),
    );
    assert.equal(
      await read('CANCEL_AUTHORIZATION_TYPEHASH'),
      typeHash('CancelAuthorization(address authorizer,bytes32 nonce)'),
    );
  });

  it('mints (owner only) and tracks the total supply', async () => {
    const holder = privateKeyToAccount(generatePrivateKey()).address;
    const supplyBefore = (await read('totalSupply')) as bigint;
    await usdc.mint(holder, 5n * USDC);
    assert.equal(await usdc.balanceOf(holder), 5n * USDC);
    assert.equal(await read('totalSupply'), supplyBefore + 5n * USDC);
    await assert.rejects(submit('mint', [relayer.account.address, USDC]), /caller is not the owner/);
  });

  it('an ERC-20 transfer moves the tokens and emits Transfer', async () => {
    const to = privateKeyToAccount(generatePrivateKey()).address;
    await usdc.mint(relayer.account.address, 3n * USDC);
    const hash = await submit('transfer', [to, 2n * USDC]);
    const receipt = await publicClient.getTransactionReceipt({ hash });
    const transfers = receipt.logs.map((log) => decodeEventLog({ abi: usdc.abi, ...log }));
    assert.deepEqual(transfers, [
      { eventName: 'Transfer', args: { from: relayer.account.address, to, value: 2n * USDC } },
    ]);
    assert.equal(await usdc.balanceOf(to), 2n * USDC);
    await assert.rejects(submit('transfer', [to, 100n * USDC]), /transfer amount exceeds balance/);
  });

  it('transferWithAuthorization submitted by another account moves the tokens; the payer spends no gas', async () => {
    const auth = await authorization(7n * USDC);
    const payerBefore = await usdc.balanceOf(payer.address);
    const payeeBefore = await usdc.balanceOf(payee);
    assert.equal(await read('authorizationState', [payer.address, auth.nonce]), false);

    const hash = await submit('transferWithAuthorization', vrsArgs(auth, await sign(auth)));

    assert.equal(await usdc.balanceOf(payer.address), payerBefore - 7n * USDC);
    assert.equal(await usdc.balanceOf(payee), payeeBefore + 7n * USDC);
    assert.equal(await read('authorizationState', [payer.address, auth.nonce]), true);
    assert.equal(await publicClient.getBalance({ address: payer.address }), 0n, 'the payer holds no ETH');
    assert.equal(
      await publicClient.getTransactionCount({ address: payer.address }),
      0,
      'nor sent a transaction',
    );
    const receipt = await publicClient.getTransactionReceipt({ hash });
    assert.equal(receipt.from.toLowerCase(), relayer.account.address.toLowerCase());
    const events = receipt.logs.map((log) => decodeEventLog({ abi: usdc.abi, ...log }).eventName);
    assert.deepEqual(events, ['AuthorizationUsed', 'Transfer']);
  });

  it('a replayed authorization reverts', async () => {
    const auth = await authorization(USDC);
    const args = vrsArgs(auth, await sign(auth));
    await submit('transferWithAuthorization', args);
    await assert.rejects(submit('transferWithAuthorization', args), /authorization is used or canceled/);
  });

  it('an expired or not yet valid authorization reverts', async () => {
    const { timestamp } = await publicClient.getBlock();
    // The next block's timestamp is later than the latest one's, so validBefore = latest is already past.
    const expired = await authorization(USDC, { validBefore: timestamp });
    await assert.rejects(
      submit('transferWithAuthorization', vrsArgs(expired, await sign(expired))),
      /authorization is expired/,
    );
    const early = await authorization(USDC, {
      validAfter: timestamp + 3600n,
      validBefore: timestamp + 7200n,
    });
    await assert.rejects(
      submit('transferWithAuthorization', vrsArgs(early, await sign(early))),
      /authorization is not yet valid/,
    );
  });

  it('a signature by anyone but `from` reverts, and so do a malleable s and a bad v', async () => {
    const auth = await authorization(USDC);
    const impostor = privateKeyToAccount(generatePrivateKey());
    await assert.rejects(
      submit('transferWithAuthorization', vrsArgs(auth, await sign(auth, impostor))),
      /invalid signature/,
    );
    const { v, r, s } = parseSignature(await sign(auth));
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const twin = [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce];
    await assert.rejects(
      submit('transferWithAuthorization', [
        ...twin,
        v === 27n ? 28 : 27,
        r,
        toHex(n - BigInt(s), { size: 32 }),
      ]),
      /invalid signature 's' value/,
    );
    await assert.rejects(
      submit('transferWithAuthorization', [...twin, 29, r, s]),
      /invalid signature 'v' value/,
    );
    assert.equal(await read('authorizationState', [payer.address, auth.nonce]), false);
  });

  it('the `bytes signature` overload (FiatToken v2.2, used by x402) works', async () => {
    const auth = await authorization(2n * USDC);
    const payeeBefore = await usdc.balanceOf(payee);
    const signature = await sign(auth);
    const args = [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, signature];
    await submit('transferWithAuthorization', args);
    assert.equal(await usdc.balanceOf(payee), payeeBefore + 2n * USDC);
    await assert.rejects(submit('transferWithAuthorization', args), /authorization is used or canceled/);
  });

  it('receiveWithAuthorization only from the payee; cancelAuthorization burns the nonce', async () => {
    const receiver = mnemonicToAccount(anvil.mnemonic, { addressIndex: 7 });
    const auth = await authorization(USDC, { to: receiver.address });
    const args = vrsArgs(auth, await sign(auth, payer, 'ReceiveWithAuthorization'));
    await assert.rejects(submit('receiveWithAuthorization', args), /caller must be the payee/);
    await submit('receiveWithAuthorization', args, anvilWalletClient(anvil, receiver));
    assert.equal(await usdc.balanceOf(receiver.address), USDC);

    const doomed = await authorization(USDC);
    const cancel = await payer.signTypedData({
      domain: { name: 'USD Coin', version: '2', chainId: anvil.chainId, verifyingContract: usdc.address },
      types: { CancelAuthorization: cancelFields },
      primaryType: 'CancelAuthorization',
      message: { authorizer: payer.address, nonce: doomed.nonce },
    });
    const { v, r, s } = parseSignature(cancel);
    await submit('cancelAuthorization', [payer.address, doomed.nonce, Number(v), r, s]);
    assert.equal(await read('authorizationState', [payer.address, doomed.nonce]), true);
    await assert.rejects(
      submit('transferWithAuthorization', vrsArgs(doomed, await sign(doomed))),
      /authorization is used or canceled/,
    );
  });

  it('a blocked recipient makes transfer and transferWithAuthorization revert until unblocked', async () => {
    const blocked = privateKeyToAccount(generatePrivateKey()).address;
    await usdc.mint(relayer.account.address, USDC);
    await usdc.setBlocked(blocked, true);
    await assert.rejects(submit('transfer', [blocked, USDC]), /account is blocked/);
    const auth = await authorization(USDC, { to: blocked });
    const args = vrsArgs(auth, await sign(auth));
    await assert.rejects(submit('transferWithAuthorization', args), /account is blocked/);
    await assert.rejects(submit('setBlocked', [payee, true]), /caller is not the owner/);
    await usdc.setBlocked(blocked, false);
    await submit('transferWithAuthorization', args);
    assert.equal(await usdc.balanceOf(blocked), USDC);
  });

  it('evm_snapshot / evm_revert removes a mined transfer (a re-org)', async () => {
    const to = privateKeyToAccount(generatePrivateKey()).address;
    await usdc.mint(relayer.account.address, USDC);
    const blockBefore = await publicClient.getBlockNumber();
    const id = await snapshot(anvil);
    const hash = await submit('transfer', [to, USDC]);
    await mine(anvil, 3);
    assert.equal(await usdc.balanceOf(to), USDC);
    assert.equal(await publicClient.getBlockNumber(), blockBefore + 4n);

    await revert(anvil, id);
    assert.equal(await usdc.balanceOf(to), 0n);
    assert.equal(await publicClient.getBlockNumber(), blockBefore);
    await assert.rejects(publicClient.getTransactionReceipt({ hash }), /could not be found/);
  });
});

describe('startAnvil options and stop()', {
  skip: probe.available ? false : probe.skip,
  timeout: 60_000,
}, () => {
  it('mines on a block time when given one, and stop() frees the port', async () => {
    const anvil = await startAnvil({ blockTimeSeconds: 1 });
    try {
      const client = anvilPublicClient(anvil);
      const deadline = Date.now() + 10_000;
      while ((await client.getBlockNumber()) < 2n && Date.now() < deadline) await sleep(200);
      assert.ok((await client.getBlockNumber()) >= 2n, 'blocks are mined without transactions');
    } finally {
      await anvil.stop();
    }
    await anvil.stop(); // twice is harmless
    await assert.rejects(fetch(anvil.rpcUrl, { method: 'POST', signal: AbortSignal.timeout(2_000) }));
  });
});

const eip712DomainFields = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
] as const;

const cancelFields = [
  { name: 'authorizer', type: 'address' },
  { name: 'nonce', type: 'bytes32' },
] as const;
