// A bounded treasury set up as an operator does it, with the CLI against real processes (the crash tests): the
// framework deployed with deploy-smart-accounts, then treasury-prepare, the owners' signatures, treasury-grant.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Address } from 'viem';
import type { HDAccount } from 'viem/accounts';
import { owners } from './bounded.ts';
import { type EvmWorld, evmEnv } from './evm.ts';
import { GENEROUS_RATE_LIMITS } from './harness.ts';
import { runCli } from './processes.ts';

/**
 * The service's environment on `world` with its data in `dataDir` (`base`: the hot rail, fast confirmations and
 * leases) and the addresses deploy-smart-accounts printed, in its order (`deployed`: NAME=0x… lines).
 */
export async function deployWithCli(
  world: EvmWorld,
  dataDir: string,
): Promise<{ base: Record<string, string>; deployed: Array<[string, string]> }> {
  const base = {
    ...evmEnv(world, { CONFIRMATIONS: '1', CHAIN_POLL_INTERVAL_MS: '100', SENDER_LEASE_MS: '1000' }),
    DATA_DIR: dataDir,
    JWT_SECRET: 'bounded-cli-test-secret-of-at-least-32-characters',
    RATE_LIMITS: GENEROUS_RATE_LIMITS,
  };
  const run = await runCli(['deploy-smart-accounts'], base);
  assert.equal(run.code, 0, run.stderr);
  const deployed = run.stdout
    .trim()
    .split('\n')
    .map((line) => line.split('=') as [string, string]);
  return { base, deployed };
}

/** `base` with the framework's addresses, bounded: allowance 100, float at most 40, owners 1-3, two to sign. */
export function boundedCliEnv(
  base: Record<string, string>,
  deployed: ReadonlyArray<[string, string]>,
): Record<string, string> {
  return {
    ...base,
    ...Object.fromEntries(deployed),
    TREASURY_MODE: 'bounded',
    TREASURY_ALLOWANCE: '100',
    TREASURY_FLOAT_MAX: '40',
    TREASURY_OWNERS: owners.map((o) => o.address).join(','),
    TREASURY_THRESHOLD: '2',
  };
}

/** treasury-prepare, `signers`' signatures over its typed data, treasury-grant: the owners' account and what grant said. */
export async function grantWithCli(
  env: Record<string, string>,
  signers: readonly HDAccount[],
): Promise<{ account: Address; granted: string }> {
  const file = join(env.DATA_DIR!, 'delegation.json');
  const prepared = await runCli(['treasury-prepare', '--out', file], env);
  assert.equal(prepared.code, 0, prepared.stderr);
  const form = JSON.parse(readFileSync(file, 'utf8'));
  form.typedData.message.salt = BigInt(form.typedData.message.salt);
  const signatures = await Promise.all(
    signers.map(async (o) => ({ signer: o.address, signature: await o.signTypedData(form.typedData) })),
  );
  writeFileSync(file, JSON.stringify({ ...form, typedData: undefined, signatures }));
  const granted = await runCli(['treasury-grant', '--in', file], env);
  assert.equal(granted.code, 0, granted.stderr);
  return { account: form.delegation.delegator, granted: granted.stdout };
}
