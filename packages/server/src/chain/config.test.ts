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

test('TREASURY_MODE: hot by default and when named; anything else is refused', () => {
  withDir((dir) => {
    assert.equal(parseEvmConfig(base, dir).treasuryMode, 'hot');
    assert.equal(parseEvmConfig(base, dir).bounded, null);
    assert.equal(parseEvmConfig({ ...base, TREASURY_MODE: 'hot' }, dir).treasuryMode, 'hot');
    assert.throws(
      () => parseEvmConfig({ ...base, TREASURY_MODE: 'cold' }, dir),
      (error: unknown) => error instanceof EvmConfigError && /TREASURY_MODE must be/.test(error.message),
    );
  });
});

const OWNER_A = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const OWNER_B = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const framework = {
  DELEGATION_MANAGER_ADDRESS: `0x${'11'.repeat(20)}`,
  DELEGATION_FACTORY_ADDRESS: `0x${'22'.repeat(20)}`,
  MULTISIG_DELEGATOR_ADDRESS: `0x${'33'.repeat(20)}`,
  PERIOD_TRANSFER_ENFORCER_ADDRESS: `0x${'44'.repeat(20)}`,
  ENTRY_POINT_ADDRESS: `0x${'55'.repeat(20)}`,
};
const bounded = {
  ...base,
  ...framework,
  TREASURY_MODE: 'bounded',
  TREASURY_ALLOWANCE: '250.5',
  TREASURY_OWNERS: `${OWNER_A}, ${OWNER_B}`,
  TREASURY_THRESHOLD: '2',
};

test('TREASURY_MODE=bounded: the allowance in micros, a day by default, the float capped at one allowance', () => {
  withDir((dir) => {
    const config = parseEvmConfig(bounded, dir);
    assert.equal(config.treasuryMode, 'bounded');
    assert.deepEqual(config.bounded, {
      accountKind: 'multisig',
      hybridImpl: undefined,
      allowanceMicros: 250_500_000n,
      periodSeconds: 86_400,
      allowanceStartSeconds: undefined,
      floatMaxMicros: 250_500_000n,
      owners: [OWNER_B.toLowerCase(), OWNER_A.toLowerCase()],
      threshold: 2,
      account: undefined,
      framework: {
        delegationManager: framework.DELEGATION_MANAGER_ADDRESS,
        simpleFactory: framework.DELEGATION_FACTORY_ADDRESS,
        multiSigImpl: framework.MULTISIG_DELEGATOR_ADDRESS,
        periodTransferEnforcer: framework.PERIOD_TRANSFER_ENFORCER_ADDRESS,
        entryPoint: framework.ENTRY_POINT_ADDRESS,
      },
    });
    const set = parseEvmConfig(
      {
        ...bounded,
        TREASURY_ALLOWANCE_PERIOD: '12h',
        TREASURY_ALLOWANCE_START: '2026-12-01T00:00:00Z',
        TREASURY_FLOAT_MAX: '40',
        TREASURY_ACCOUNT: `0x${'AB'.repeat(20)}`,
      },
      dir,
    ).bounded!;
    assert.equal(set.periodSeconds, 43_200);
    assert.equal(set.allowanceStartSeconds, Date.UTC(2026, 11, 1) / 1000);
    assert.equal(set.floatMaxMicros, 40_000_000n);
    assert.equal(set.account, `0x${'ab'.repeat(20)}`);
    // Base's published deployment of the framework needs no address variables.
    const onBase = parseEvmConfig({ ...bounded, ...emptied(framework), EVM_CHAIN_ID: '8453' }, dir).bounded!;
    assert.equal(onBase.framework.delegationManager, '0xdb9b1e94b5b69df7e401ddbede43491141047db3');
  });
});

function emptied(vars: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.keys(vars).map((k) => [k, '']));
}

test('TREASURY_MODE=bounded: every bad setting stops the server naming its variable', () => {
  withDir((dir) => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ TREASURY_ALLOWANCE: '' }, /requires TREASURY_ALLOWANCE/],
      [{ TREASURY_ALLOWANCE: '1e3' }, /TREASURY_ALLOWANCE must be a USDC amount/],
      [{ TREASURY_ALLOWANCE: '0' }, /TREASURY_ALLOWANCE must be greater than 0/],
      [{ TREASURY_ALLOWANCE: '1.1234567' }, /TREASURY_ALLOWANCE must be a USDC amount/],
      [{ TREASURY_ALLOWANCE_PERIOD: 'daily' }, /TREASURY_ALLOWANCE_PERIOD must be a whole number and a unit/],
      [{ TREASURY_ALLOWANCE_PERIOD: '10s' }, /TREASURY_ALLOWANCE_PERIOD must be between 1m/],
      [{ TREASURY_ALLOWANCE_START: 'tomorrow' }, /TREASURY_ALLOWANCE_START must be/],
      [{ TREASURY_ALLOWANCE_START: '2026-12-01T00:00:00' }, /TREASURY_ALLOWANCE_START must be/],
      [{ TREASURY_FLOAT_MAX: '-5' }, /TREASURY_FLOAT_MAX must be a USDC amount/],
      [{ TREASURY_OWNERS: '' }, /requires TREASURY_OWNERS/],
      [{ TREASURY_OWNERS: `${OWNER_A},0x12` }, /TREASURY_OWNERS must be addresses/],
      [{ TREASURY_OWNERS: `${OWNER_A},${OWNER_A.toLowerCase()}` }, /TREASURY_OWNERS names an address twice/],
      [{ TREASURY_THRESHOLD: '' }, /requires TREASURY_THRESHOLD/],
      [{ TREASURY_THRESHOLD: '3' }, /TREASURY_THRESHOLD must be a whole number from 1 to 2/],
      [{ TREASURY_THRESHOLD: '0' }, /TREASURY_THRESHOLD must be/],
      [{ TREASURY_ACCOUNT: 'mine' }, /TREASURY_ACCOUNT must be 0x/],
      [{ DELEGATION_MANAGER_ADDRESS: '' }, /set DELEGATION_MANAGER_ADDRESS/],
      [{ PERIOD_TRANSFER_ENFORCER_ADDRESS: '0x1' }, /PERIOD_TRANSFER_ENFORCER_ADDRESS must be 0x/],
    ];
    for (const [change, message] of cases) {
      assert.throws(
        () => parseEvmConfig({ ...bounded, ...change }, dir),
        (e: unknown) => e instanceof EvmConfigError && message.test(e.message),
        `${JSON.stringify(change)} → ${message}`,
      );
    }
    // A hybrid account: one owner at most, threshold 1, the account named.
    const hybrid = {
      TREASURY_ACCOUNT_KIND: 'hybrid',
      TREASURY_THRESHOLD: '',
      TREASURY_ACCOUNT: `0x${'ab'.repeat(20)}`,
    };
    const hybridCases: Array<[Record<string, string>, RegExp]> = [
      [
        { TREASURY_ACCOUNT_KIND: 'safe' },
        /TREASURY_ACCOUNT_KIND must be "multisig" \(the default\) or "hybrid"/,
      ],
      [{ ...hybrid }, /hybrid has one owner: TREASURY_OWNERS names at most one address/],
      [{ ...hybrid, TREASURY_OWNERS: OWNER_A, TREASURY_THRESHOLD: '2' }, /TREASURY_THRESHOLD is 1/],
      [
        { ...hybrid, TREASURY_OWNERS: OWNER_A, TREASURY_ACCOUNT: '' },
        /hybrid requires TREASURY_ACCOUNT: `agent-wallet treasury-create-hybrid/,
      ],
    ];
    for (const [change, message] of hybridCases) {
      assert.throws(
        () => parseEvmConfig({ ...bounded, ...change }, dir),
        (e: unknown) => e instanceof EvmConfigError && message.test(e.message),
        `${JSON.stringify(change)} → ${message}`,
      );
    }
    const passkeysOnly = parseEvmConfig(
      { ...bounded, ...hybrid, TREASURY_OWNERS: '', HYBRID_DELEGATOR_ADDRESS: `0x${'66'.repeat(20)}` },
      dir,
    ).bounded!;
    assert.equal(passkeysOnly.accountKind, 'hybrid');
    assert.deepEqual(passkeysOnly.owners, []);
    assert.equal(passkeysOnly.threshold, 1);
    assert.equal(passkeysOnly.account, `0x${'ab'.repeat(20)}`);
    assert.equal(passkeysOnly.hybridImpl, `0x${'66'.repeat(20)}`);
    const withKey = parseEvmConfig({ ...bounded, ...hybrid, TREASURY_OWNERS: OWNER_A }, dir).bounded!;
    assert.deepEqual(withKey.owners, [OWNER_A.toLowerCase()]);
    // One owner needs no threshold.
    const single = parseEvmConfig({ ...bounded, TREASURY_OWNERS: OWNER_A, TREASURY_THRESHOLD: '' }, dir);
    assert.equal(single.bounded!.threshold, 1);
  });
});
