// Configuration of TREASURY_MODE=bounded (contract section 14): the money rests in a smart account the owners
// hold — a MultiSigDeleGator (several owners' keys and a threshold) or a HybridDeleGator (one owner's key and/or
// the P-256 keys of their passkeys, any one of which signs: TREASURY_ACCOUNT_KIND=hybrid) — and a delegation lets
// the service's key take at most TREASURY_ALLOWANCE per TREASURY_ALLOWANCE_PERIOD from it, enforced on chain by
// the framework's ERC20PeriodTransferEnforcer. Pure
// parsing: every problem names its variable. The framework's addresses come from @metamask/delegation-deployments
// on chains it is deployed on, else (a local chain) from the variables `agent-wallet deploy-smart-accounts` prints.
import { createRequire } from 'node:module';
import { AMOUNT_MAX_MICROS, decimalToMicros } from '../../domain/money.ts';

export class BoundedConfigError extends Error {}

/** The framework's contracts the service uses (release 1.3.0 of the MetaMask Delegation Framework). */
export interface FrameworkAddresses {
  delegationManager: `0x${string}`;
  simpleFactory: `0x${string}`;
  multiSigImpl: `0x${string}`;
  periodTransferEnforcer: `0x${string}`;
  /** The ERC-4337 EntryPoint through which the account executes what its owners sign. */
  entryPoint: `0x${string}`;
}

/** `multisig`: owners' addresses and a threshold; `hybrid`: one owner's address and/or passkeys, any one signs. */
export type AccountKind = 'multisig' | 'hybrid';

export interface BoundedConfig {
  accountKind: AccountKind;
  /** What the service's key may take from the account per period (micro-units). */
  allowanceMicros: bigint;
  periodSeconds: number;
  /** Unix seconds the first period starts; undefined: the set-up time, stored when the account is set up. */
  allowanceStartSeconds: number | undefined;
  /** The float (the service key's USDC) is refilled up to this, never above. */
  floatMaxMicros: bigint;
  /** Lower-case, sorted, distinct; a hybrid account has at most one (none: passkeys only). */
  owners: `0x${string}`[];
  threshold: number;
  /**
   * An existing account to adopt (lower-case); undefined: the service's own, computed from owners and threshold.
   * Always set for a hybrid account (its address depends on passkeys the configuration does not list).
   */
  account: `0x${string}` | undefined;
  framework: FrameworkAddresses;
  /** The HybridDeleGator implementation (`treasury-create-hybrid` deploys accounts of it); undefined if unknown. */
  hybridImpl: `0x${string}` | undefined;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const AMOUNT = /^(0|[1-9][0-9]{0,9})(\.[0-9]{1,6})?$/;
const PERIOD = /^([1-9][0-9]{0,6})([smhdw])$/;
const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400, w: 604_800 };
/** Periods shorter than this would let the float be drained and refilled faster than anyone can react. */
const PERIOD_MIN_SECONDS = 60;
const OWNERS_MAX = 16;

export const FRAMEWORK_VARIABLES = {
  delegationManager: 'DELEGATION_MANAGER_ADDRESS',
  simpleFactory: 'DELEGATION_FACTORY_ADDRESS',
  multiSigImpl: 'MULTISIG_DELEGATOR_ADDRESS',
  periodTransferEnforcer: 'PERIOD_TRANSFER_ENFORCER_ADDRESS',
  entryPoint: 'ENTRY_POINT_ADDRESS',
} as const satisfies Record<keyof FrameworkAddresses, string>;

/** Not among FRAMEWORK_VARIABLES: only a hybrid account's creation needs it. */
export const HYBRID_IMPL_VARIABLE = 'HYBRID_DELEGATOR_ADDRESS';

export function parseBoundedConfig(env: NodeJS.ProcessEnv, chainId: number): BoundedConfig {
  const allowanceMicros = parseUsdc('TREASURY_ALLOWANCE', env.TREASURY_ALLOWANCE, undefined);
  const accountKind = parseAccountKind(env.TREASURY_ACCOUNT_KIND);
  if (accountKind === 'hybrid') return { ...parseHybrid(env), ...common(env, chainId, allowanceMicros) };
  const owners = parseOwners(env.TREASURY_OWNERS);
  return {
    accountKind,
    owners,
    threshold: parseThreshold(env.TREASURY_THRESHOLD, owners.length),
    account: optionalAddress('TREASURY_ACCOUNT', env.TREASURY_ACCOUNT),
    ...common(env, chainId, allowanceMicros),
  };
}

function common(env: NodeJS.ProcessEnv, chainId: number, allowanceMicros: bigint) {
  return {
    allowanceMicros,
    periodSeconds: parsePeriod(env.TREASURY_ALLOWANCE_PERIOD),
    allowanceStartSeconds: parseStart(env.TREASURY_ALLOWANCE_START),
    floatMaxMicros: parseUsdc('TREASURY_FLOAT_MAX', env.TREASURY_FLOAT_MAX, allowanceMicros),
    framework: parseFramework(env, chainId),
    hybridImpl: hybridImplementation(env, chainId),
  };
}

function parseAccountKind(value: string | undefined): AccountKind {
  if (value === undefined || value === '' || value === 'multisig') return 'multisig';
  if (value === 'hybrid') return 'hybrid';
  throw new BoundedConfigError('TREASURY_ACCOUNT_KIND must be "multisig" (the default) or "hybrid"');
}

/**
 * A HybridDeleGator: any one of its keys signs (threshold 1), its owner's address (TREASURY_OWNERS, optional: an
 * account of passkeys alone has none) and the passkeys' P-256 keys kept by the account itself on chain.
 */
function parseHybrid(env: NodeJS.ProcessEnv) {
  const owners =
    env.TREASURY_OWNERS === undefined || env.TREASURY_OWNERS.trim() === ''
      ? []
      : parseOwners(env.TREASURY_OWNERS);
  if (owners.length > 1)
    throw new BoundedConfigError(
      'TREASURY_ACCOUNT_KIND=hybrid has one owner: TREASURY_OWNERS names at most one address',
    );
  if (env.TREASURY_THRESHOLD !== undefined && env.TREASURY_THRESHOLD !== '' && env.TREASURY_THRESHOLD !== '1')
    throw new BoundedConfigError(
      'TREASURY_ACCOUNT_KIND=hybrid signs with any one key: TREASURY_THRESHOLD is 1',
    );
  const account = optionalAddress('TREASURY_ACCOUNT', env.TREASURY_ACCOUNT);
  if (account === undefined)
    throw new BoundedConfigError(
      'TREASURY_ACCOUNT_KIND=hybrid requires TREASURY_ACCOUNT: `agent-wallet treasury-create-hybrid --email ADDRESS` creates one from the passkeys that person enrolled and prints it',
    );
  return { accountKind: 'hybrid' as const, owners, threshold: 1, account };
}

function parseUsdc(name: string, value: string | undefined, fallback: bigint | undefined): bigint {
  if (value === undefined || value === '') {
    if (fallback === undefined) throw new BoundedConfigError(`TREASURY_MODE=bounded requires ${name}`);
    return fallback;
  }
  if (!AMOUNT.test(value))
    throw new BoundedConfigError(`${name} must be a USDC amount such as "250" or "99.5" (up to 6 decimals)`);
  const micros = decimalToMicros(value);
  if (micros <= 0n || micros > AMOUNT_MAX_MICROS)
    throw new BoundedConfigError(`${name} must be greater than 0 and at most 1000000000`);
  return micros;
}

/** `1d` (the default), `12h`, `30m`, `1w`: a fixed period, as the enforcer counts it. */
export function parsePeriod(value: string | undefined): number {
  const text = value === undefined || value === '' ? '1d' : value;
  const match = PERIOD.exec(text);
  if (match === null)
    throw new BoundedConfigError(
      'TREASURY_ALLOWANCE_PERIOD must be a whole number and a unit (s, m, h, d, w), such as "1d" or "12h"',
    );
  const seconds = Number(match[1]) * UNIT_SECONDS[match[2]!]!;
  if (seconds < PERIOD_MIN_SECONDS || seconds > 366 * 86_400)
    throw new BoundedConfigError('TREASURY_ALLOWANCE_PERIOD must be between 1m and 366d');
  return seconds;
}

/** An ISO 8601 date-time with its zone, or Unix seconds; unset: the set-up time. */
function parseStart(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  let seconds: number;
  if (/^[0-9]{1,12}$/.test(value)) seconds = Number(value);
  else if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value))
    seconds = Math.floor(Date.parse(value) / 1000);
  else seconds = Number.NaN;
  if (!Number.isSafeInteger(seconds) || seconds <= 0)
    throw new BoundedConfigError(
      'TREASURY_ALLOWANCE_START must be Unix seconds or an ISO 8601 time with its zone, such as 2026-12-01T00:00:00Z',
    );
  return seconds;
}

function parseOwners(value: string | undefined): `0x${string}`[] {
  if (value === undefined || value.trim() === '')
    throw new BoundedConfigError(
      "TREASURY_MODE=bounded requires TREASURY_OWNERS: the owners' addresses, separated by commas",
    );
  const owners = value.split(',').map((part) => part.trim());
  for (const owner of owners) {
    if (!ADDRESS.test(owner))
      throw new BoundedConfigError(
        'TREASURY_OWNERS must be addresses (0x and 40 hex digits) separated by commas',
      );
  }
  const distinct = [...new Set(owners.map((o) => o.toLowerCase() as `0x${string}`))].sort();
  if (distinct.length !== owners.length)
    throw new BoundedConfigError('TREASURY_OWNERS names an address twice');
  if (distinct.length > OWNERS_MAX)
    throw new BoundedConfigError(`TREASURY_OWNERS may name at most ${OWNERS_MAX} owners`);
  return distinct;
}

function parseThreshold(value: string | undefined, ownerCount: number): number {
  if (value === undefined || value === '') {
    if (ownerCount === 1) return 1;
    throw new BoundedConfigError(
      'TREASURY_MODE=bounded with several owners requires TREASURY_THRESHOLD: how many of them must sign',
    );
  }
  if (!/^[0-9]{1,2}$/.test(value) || Number(value) < 1 || Number(value) > ownerCount)
    throw new BoundedConfigError(
      `TREASURY_THRESHOLD must be a whole number from 1 to ${ownerCount} (the owners)`,
    );
  return Number(value);
}

function optionalAddress(name: string, value: string | undefined): `0x${string}` | undefined {
  if (value === undefined || value === '') return undefined;
  if (!ADDRESS.test(value)) throw new BoundedConfigError(`${name} must be 0x followed by 40 hex digits`);
  return value.toLowerCase() as `0x${string}`;
}

const KNOWN_NAMES: Record<keyof FrameworkAddresses, string> = {
  delegationManager: 'DelegationManager',
  simpleFactory: 'SimpleFactory',
  multiSigImpl: 'MultiSigDeleGatorImpl',
  periodTransferEnforcer: 'ERC20PeriodTransferEnforcer',
  entryPoint: 'EntryPoint',
};

/** Each address from its variable, else from the framework's published deployment on this chain, else refused. */
export function parseFramework(env: NodeJS.ProcessEnv, chainId: number): FrameworkAddresses {
  const published = publishedDeployment(chainId);
  const entries = Object.entries(FRAMEWORK_VARIABLES).map(([key, name]) => {
    const configured = optionalAddress(name, env[name]);
    const known = published?.[KNOWN_NAMES[key as keyof FrameworkAddresses]];
    const address = configured ?? (known === undefined ? undefined : known.toLowerCase());
    if (address === undefined)
      throw new BoundedConfigError(
        `chain ${chainId} has no published deployment of the MetaMask Delegation Framework: set ${name} (\`agent-wallet deploy-smart-accounts\` deploys the framework on a local chain and prints every address)`,
      );
    return [key, address];
  });
  return Object.fromEntries(entries) as FrameworkAddresses;
}

/** HYBRID_DELEGATOR_ADDRESS, else the published HybridDeleGatorImpl, else undefined (no account can be created). */
export function hybridImplementation(env: NodeJS.ProcessEnv, chainId: number): `0x${string}` | undefined {
  const configured = optionalAddress(HYBRID_IMPL_VARIABLE, env[HYBRID_IMPL_VARIABLE]);
  return (
    configured ??
    (publishedDeployment(chainId)?.HybridDeleGatorImpl?.toLowerCase() as `0x${string}` | undefined)
  );
}

/** Loaded only in bounded mode: a hot or sandbox service never reads the deployments table. */
function publishedDeployment(chainId: number): Record<string, string> | undefined {
  const require = createRequire(import.meta.url);
  const { DELEGATOR_CONTRACTS } = require('@metamask/delegation-deployments') as {
    DELEGATOR_CONTRACTS: Record<string, Record<number, Record<string, string>>>;
  };
  return DELEGATOR_CONTRACTS['1.3.0']?.[chainId];
}
