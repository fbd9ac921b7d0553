// Configuration of the `evm` rail (contract section 6). Parsed only when RAIL=evm; every problem stops the
// server with a message naming the variable. The mnemonic is a secret: it is never put in a message.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
// @scure/bip39 directly (viem uses it too): config is loaded on every rail, viem only on `evm`.
import { generateMnemonic, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import { registerSecret } from '../log-scrub.ts';
import { type BoundedConfig, BoundedConfigError, parseBoundedConfig } from './bounded/bounded-config.ts';

/** Where money goes out and comes in: the in-process sandbox, or USDC on an EVM chain. */
export type Rail = 'sandbox' | 'evm';

export interface EvmConfig {
  rpcUrl: string;
  chainId: number;
  /** Lower-case hex address of the USDC (ERC-20 + EIP-3009, 6 decimals) contract. */
  usdcAddress: string;
  /** Blocks a deposit or payout waits before it counts: 1 means "in a block". */
  confirmations: number;
  /** BIP-39 phrase of every key of the service; from TREASURY_MNEMONIC or DATA_DIR/treasury-mnemonic. */
  mnemonic: string;
  /** How often the watcher and the sender look at the chain. */
  pollIntervalMs: number;
  /** A payout not in a block after this long is re-signed with the same nonce and higher fees. */
  feeBumpAfterMs: number;
  /** Payouts are refused (503, before any debit) while the treasury holds less native gas than this. */
  minTreasuryGasWei: bigint;
  /** How long the sender lease lasts unrenewed: how soon another instance takes over from a dead one. */
  senderLeaseMs: number;
  /** Deposits at an address are swept to the treasury once they add up to at least this (micro-units). */
  sweepMinMicros: bigint;
  /** Optional block explorer base URL; the dashboard links tx hashes to `<url>/tx/<hash>`. */
  explorerUrl: string | undefined;
  /**
   * Where the deposit watcher starts on a new database (undefined: the chain's head when the rail is set up);
   * below an existing database's recorded start, it rewinds the watcher to it.
   */
  startBlock: bigint | undefined;
  /**
   * Where the money rests (contract section 14): `hot`, in the service's own treasury key (a breach of the server
   * can take all of it); `bounded`, in a smart account the owners hold, the service's key allowed a per-period
   * amount by the chain and paying from a float it refills within that allowance.
   */
  treasuryMode: 'hot' | 'bounded';
  /** The bounded treasury's settings; null in `hot` mode. */
  bounded: BoundedConfig | null;
}

export class EvmConfigError extends Error {}

function parseTreasuryMode(value: string | undefined): 'hot' | 'bounded' {
  const mode = value === undefined || value === '' ? 'hot' : value;
  if (mode === 'hot' || mode === 'bounded') return mode;
  throw new EvmConfigError(
    `TREASURY_MODE must be "hot" or "bounded", not ${JSON.stringify(mode.slice(0, 40))}`,
  );
}

const ADDRESS_PATTERN = /^0x[0-9a-fA-F]{40}$/;

export function parseEvmConfig(env: NodeJS.ProcessEnv, dataDir: string): EvmConfig {
  const chainId = Number(parseWhole('EVM_CHAIN_ID', env.EVM_CHAIN_ID, undefined, 1n, 2n ** 53n));
  const treasuryMode = parseTreasuryMode(env.TREASURY_MODE);
  return {
    rpcUrl: parseRpcUrl(env.EVM_RPC_URL),
    chainId,
    usdcAddress: parseUsdcAddress(env.USDC_ADDRESS),
    confirmations: Number(parseWhole('CONFIRMATIONS', env.CONFIRMATIONS, 12n, 1n, 10_000n)),
    mnemonic: mnemonicFrom(env.TREASURY_MNEMONIC, dataDir),
    pollIntervalMs: Number(
      parseWhole('CHAIN_POLL_INTERVAL_MS', env.CHAIN_POLL_INTERVAL_MS, 2_000n, 50n, 600_000n),
    ),
    feeBumpAfterMs: Number(
      parseWhole('PAYOUT_FEE_BUMP_AFTER_MS', env.PAYOUT_FEE_BUMP_AFTER_MS, 60_000n, 100n, 86_400_000n),
    ),
    senderLeaseMs: Number(parseWhole('SENDER_LEASE_MS', env.SENDER_LEASE_MS, 30_000n, 1_000n, 3_600_000n)),
    minTreasuryGasWei: parseWhole(
      'TREASURY_MIN_GAS_WEI',
      env.TREASURY_MIN_GAS_WEI,
      10n ** 15n,
      0n,
      10n ** 30n,
    ),
    sweepMinMicros: parseWhole('SWEEP_MIN_MICROS', env.SWEEP_MIN_MICROS, 1n, 1n, 10n ** 18n),
    explorerUrl: parseExplorerUrl(env.EXPLORER_URL),
    startBlock:
      (env.CHAIN_START_BLOCK ?? '') === ''
        ? undefined
        : parseWhole('CHAIN_START_BLOCK', env.CHAIN_START_BLOCK, 0n, 0n, 2n ** 63n - 1n),
    treasuryMode,
    bounded: treasuryMode === 'bounded' ? boundedFrom(env, chainId) : null,
  };
}

function boundedFrom(env: NodeJS.ProcessEnv, chainId: number): BoundedConfig {
  try {
    return parseBoundedConfig(env, chainId);
  } catch (error) {
    if (error instanceof BoundedConfigError) throw new EvmConfigError(error.message);
    throw error;
  }
}

function parseRpcUrl(value: string | undefined): string {
  if (value === undefined || value === '') throw new EvmConfigError('RAIL=evm requires EVM_RPC_URL');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new EvmConfigError('EVM_RPC_URL must be an http(s):// or ws(s):// URL');
  }
  if (!['http:', 'https:'].includes(url.protocol)) {
    throw new EvmConfigError('EVM_RPC_URL must be an http:// or https:// URL');
  }
  return value;
}

function parseUsdcAddress(value: string | undefined): string {
  if (value === undefined || value === '') throw new EvmConfigError('RAIL=evm requires USDC_ADDRESS');
  if (!ADDRESS_PATTERN.test(value))
    throw new EvmConfigError('USDC_ADDRESS must be 0x followed by 40 hex digits');
  return value.toLowerCase();
}

function parseExplorerUrl(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^https?:\/\/[^\s]+$/.test(value)) throw new EvmConfigError('EXPLORER_URL must be an http(s):// URL');
  return value.replace(/\/+$/, '');
}

function parseWhole(
  name: string,
  value: string | undefined,
  fallback: bigint | undefined,
  min: bigint,
  max: bigint,
) {
  if (value === undefined || value === '') {
    if (fallback === undefined) throw new EvmConfigError(`RAIL=evm requires ${name}`);
    return fallback;
  }
  if (!/^[0-9]{1,40}$/.test(value)) throw new EvmConfigError(`${name} must be a whole number`);
  const parsed = BigInt(value);
  if (parsed < min || parsed > max) throw new EvmConfigError(`${name} must be between ${min} and ${max}`);
  return parsed;
}

/**
 * TREASURY_MNEMONIC, or DATA_DIR/treasury-mnemonic generated once (mode 0600). An invalid phrase stops the server
 * without echoing it: a mistyped secret is still a secret.
 */
function mnemonicFrom(value: string | undefined, dataDir: string): string {
  if (value !== undefined && value !== '') return checkedMnemonic(value.trim(), 'TREASURY_MNEMONIC');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, 'treasury-mnemonic');
  if (!existsSync(file))
    writeFileSync(file, `${generateMnemonic(wordlist, 128)}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return checkedMnemonic(readFileSync(file, 'utf8').trim(), file);
}

function checkedMnemonic(phrase: string, source: string): string {
  const normalised = phrase.split(/\s+/).join(' ');
  if (!validateMnemonic(normalised, wordlist)) {
    throw new EvmConfigError(`${source} is not a valid BIP-39 English mnemonic (its words are not shown)`);
  }
  registerSecret(normalised);
  return normalised;
}
