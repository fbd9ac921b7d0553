import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { EvmConfigError, parseEvmConfig } from './config.ts';

const base = {
  EVM_RPC_URL: 'http://127.0.0.1:8545',
  EVM_CHAIN_ID: '31337',
  USDC_ADDRESS: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
};
const KNOWN = 'test test test test test test test test test test test junk';

function withDir(fn: (dir: string) => void) {
  const dir = mkdtempSync(join(tmpdir(), 'evm-config-'));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('defaults: 12 confirmations, the address lower-cased, a mnemonic generated once into DATA_DIR (0600)', () => {
  withDir((dir) => {
    const config = parseEvmConfig(base, dir);
    assert.equal(config.confirmations, 12);
    assert.equal(config.usdcAddress, base.USDC_ADDRESS.toLowerCase());
    const file = join(dir, 'treasury-mnemonic');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(readFileSync(file, 'utf8').trim(), config.mnemonic);
    assert.equal(config.mnemonic.split(' ').length, 12);
    assert.equal(parseEvmConfig(base, dir).mnemonic, config.mnemonic, 'the same mnemonic on every start');
    assert.equal(parseEvmConfig({ ...base, TREASURY_MNEMONIC: KNOWN }, dir).mnemonic, KNOWN);
  });
});

test('bad settings stop the server naming the variable; a bad mnemonic is never echoed', () => {
  withDir((dir) => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ ...base, EVM_RPC_URL: '' }, /requires EVM_RPC_URL/],
      [{ ...base, EVM_RPC_URL: 'ftp://x' }, /EVM_RPC_URL must be an http/],
      [{ ...base, EVM_CHAIN_ID: '' }, /requires EVM_CHAIN_ID/],
      [{ ...base, EVM_CHAIN_ID: 'base' }, /EVM_CHAIN_ID must be a whole number/],
      [{ ...base, USDC_ADDRESS: '0x12' }, /USDC_ADDRESS must be 0x followed by 40 hex digits/],
      [{ ...base, CONFIRMATIONS: '0' }, /CONFIRMATIONS must be between 1/],
      [{ ...base, EXPLORER_URL: 'javascript:alert(1)' }, /EXPLORER_URL must be an http/],
    ];
    for (const [env, message] of cases) {
      assert.throws(
        () => parseEvmConfig(env, dir),
        (e: unknown) => e instanceof EvmConfigError && message.test(e.message),
      );
    }
    const secretish = 'correct horse battery staple is not a bip39 phrase at all';
    assert.throws(
      () => parseEvmConfig({ ...base, TREASURY_MNEMONIC: secretish }, dir),
      (e: unknown) =>
        e instanceof EvmConfigError && /not a valid BIP-39/.test(e.message) && !e.message.includes('horse'),
    );
  });
});

test('TREASURY_MODE: hot by default and when named; bounded is refused at start, saying it is not built', () => {
  withDir((dir) => {
    assert.equal(parseEvmConfig(base, dir).treasuryMode, 'hot');
    assert.equal(parseEvmConfig({ ...base, TREASURY_MODE: 'hot' }, dir).treasuryMode, 'hot');
    assert.throws(
      () => parseEvmConfig({ ...base, TREASURY_MODE: 'bounded' }, dir),
      (error: unknown) =>
        error instanceof EvmConfigError && /not available in this release/.test(error.message),
    );
    assert.throws(
      () => parseEvmConfig({ ...base, TREASURY_MODE: 'cold' }, dir),
      (error: unknown) => error instanceof EvmConfigError && /TREASURY_MODE must be/.test(error.message),
    );
  });
});
