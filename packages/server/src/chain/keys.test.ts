import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { getAddress } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { toChecksumAddress } from '../domain/address.ts';
import { serviceKeys, TREASURY_INDEX } from './keys.ts';

const MNEMONIC = 'test test test test test test test test test test test junk';

test('the sandbox path’s EIP-55 (keccak from @noble/hashes) agrees with viem on random addresses', () => {
  for (let i = 0; i < 500; i += 1) {
    const lower = `0x${randomBytes(20).toString('hex')}`;
    assert.equal(toChecksumAddress(lower), getAddress(lower));
  }
});

test('HD keys follow BIP-44 m/44’/60’/0’/0/<index> as viem derives them; index 0 is the treasury', () => {
  const keys = serviceKeys(MNEMONIC);
  assert.equal(keys.treasury.address, mnemonicToAccount(MNEMONIC, { addressIndex: TREASURY_INDEX }).address);
  assert.equal(
    keys.treasury.address,
    '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    'anvil’s well-known account 0',
  );
  for (const index of [1, 2, 7, 1_000]) {
    assert.equal(
      keys.addressAt(index),
      mnemonicToAccount(MNEMONIC, { addressIndex: index }).address.toLowerCase(),
    );
  }
  assert.throws(() => keys.accountAt(-1), RangeError);
  assert.throws(() => keys.accountAt(2 ** 31), RangeError);
});
