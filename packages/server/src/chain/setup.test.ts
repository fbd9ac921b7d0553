import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decideDepositStart, decideRailStart, depositStartNeedsHead, type RailIdentity } from './setup.ts';

const sandbox: RailIdentity = { rail: 'sandbox', chainId: null, treasury: null };
const evm: RailIdentity = {
  rail: 'evm',
  chainId: 8453,
  treasury: '0x00000000000000000000000000000000000000aa',
};
const settings = (entries: Array<[string, string]>) => new Map(entries);
const evmSettings = settings([
  ['rail', 'evm'],
  ['chain_id', '8453'],
  ['treasury_address', evm.treasury!],
  ['next_derivation_index', '7'],
]);

test('a new database records the rail it starts on (and on evm its chain, treasury and index counter)', () => {
  assert.deepEqual(decideRailStart(settings([]), 0, sandbox), { ok: true, writes: [['rail', 'sandbox']] });
  const first = decideRailStart(settings([]), 0, evm);
  assert.deepEqual(first, {
    ok: true,
    writes: [
      ['rail', 'evm'],
      ['chain_id', '8453'],
      ['treasury_address', evm.treasury],
      ['next_derivation_index', '1'],
    ],
  });
});

test('a database that agrees starts and records nothing', () => {
  assert.deepEqual(decideRailStart(settings([['rail', 'sandbox']]), 3, sandbox), { ok: true, writes: [] });
  assert.deepEqual(decideRailStart(evmSettings, 3, evm), { ok: true, writes: [] });
});

test('a database from a release before the evm rail (wallets, no settings) is a sandbox database', () => {
  assert.deepEqual(decideRailStart(settings([]), 2, sandbox), { ok: true, writes: [['rail', 'sandbox']] });
  const refused = decideRailStart(settings([]), 2, evm);
  assert.equal(refused.ok, false);
  assert.match(
    !refused.ok ? refused.message : '',
    /created on the sandbox rail: its wallet addresses have no keys/,
  );
});

test('a mismatch is refused with a message that says what to do', () => {
  const cases: Array<[Map<string, string>, RailIdentity, RegExp]> = [
    [settings([['rail', 'sandbox']]), evm, /Start it with RAIL=sandbox, or give RAIL=evm a new database/],
    [evmSettings, sandbox, /created on the evm rail and holds real money; start it with RAIL=evm/],
    [evmSettings, { ...evm, chainId: 1 }, /belongs to chain 8453, but EVM_CHAIN_ID is 1/],
    [
      evmSettings,
      { ...evm, treasury: '0x00000000000000000000000000000000000000bb' },
      /TREASURY_MNEMONIC is not the one/,
    ],
  ];
  for (const [stored, wanted, message] of cases) {
    const decision = decideRailStart(stored, 1, wanted);
    assert.equal(decision.ok, false, `${JSON.stringify(wanted)} must be refused`);
    assert.match(decision.ok ? '' : decision.message, message);
  }
});

test('the deposit watcher’s start: fixed once before any address, never lazily, rewound only by CHAIN_START_BLOCK', () => {
  const fresh = { cursor: null, recordedStart: null, walletCount: 0, configured: undefined, head: 47n };
  assert.deepEqual(decideDepositStart(fresh), { action: 'set', start: 47n });
  assert.equal(depositStartNeedsHead(fresh), true);
  assert.deepEqual(decideDepositStart({ ...fresh, configured: 3n, head: null }), {
    action: 'set',
    start: 3n,
  });
  assert.equal(depositStartNeedsHead({ ...fresh, configured: 3n }), false);
  const down = decideDepositStart({ ...fresh, head: null });
  assert.equal(down.action, 'refuse', 'a new database without a readable chain does not start');
  assert.match(down.action === 'refuse' ? down.message : '', /cannot be read/);
  const orphaned = decideDepositStart({ ...fresh, walletCount: 2 });
  assert.equal(orphaned.action, 'refuse', 'addresses exist and nobody knows since when: never the head');
  assert.match(orphaned.action === 'refuse' ? orphaned.message : '', /set CHAIN_START_BLOCK/);
  assert.deepEqual(decideDepositStart({ ...fresh, walletCount: 2, configured: 9n }), {
    action: 'set',
    start: 9n,
  });
  const running = { cursor: 99n, recordedStart: 50n, walletCount: 4, configured: undefined, head: null };
  assert.deepEqual(decideDepositStart(running), { action: 'keep' });
  assert.deepEqual(decideDepositStart({ ...running, configured: 50n }), { action: 'keep' });
  assert.deepEqual(decideDepositStart({ ...running, configured: 60n }), { action: 'keep' });
  assert.deepEqual(decideDepositStart({ ...running, configured: 10n }), { action: 'rewind', start: 10n });
  assert.deepEqual(decideDepositStart({ ...running, recordedStart: null, configured: 99n }), {
    action: 'rewind',
    start: 99n,
  });
  assert.deepEqual(decideDepositStart({ ...running, recordedStart: null, configured: 100n }), {
    action: 'keep',
  });
});
