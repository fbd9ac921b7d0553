// On-chain tests: a private anvil (Foundry's local EVM node, from the @foundry-rs/anvil npm package) per suite on
// a free loopback port, and the TestUSDC token (contracts/artifacts/TestUSDC.json) deployed on it. Without anvil
// (e.g. a platform the package has no binary for) suites skip with one line; with CI=true anvil is required.
//
// Accounts: anvil funds the first 10 accounts of ANVIL_MNEMONIC. The service under test is expected to sign with index
// 0 of its own mnemonic, so the token's deployer is index DEPLOYER_INDEX: its nonces never collide with the
// service's.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type Abi,
  type Address,
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hash,
  type Hex,
  http,
  type LocalAccount,
  numberToHex,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem';
import { type HDAccount, mnemonicToAccount } from 'viem/accounts';
import artifact from '../../contracts/artifacts/TestUSDC.json' with { type: 'json' };
import { freePort } from './processes.ts';
import type { ServiceProbe } from './services.ts';

export const ANVIL_CHAIN_ID = 31337;
/** Foundry's well-known test mnemonic: recognisably not a secret, and its accounts hold only test ETH. */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
export const DEPLOYER_INDEX = 9;
export const testUsdcAbi = artifact.abi as Abi;
const testUsdcBytecode = artifact.bytecode as Hex;

const READY_TIMEOUT_MS = 15_000;
const READY_POLL_MS = 100;
const STOP_TIMEOUT_MS = 5_000;
const RPC_TIMEOUT_MS = 5_000;
const VERSION_TIMEOUT_MS = 10_000;
const RECEIPT_TIMEOUT_MS = 30_000;
const START_ATTEMPTS = 3;
const STDERR_TAIL_CHARS = 4_000;

export interface Anvil {
  rpcUrl: string;
  chainId: number;
  mnemonic: string;
  /** Stops anvil and resolves once the process (and its pipes) are gone. Safe to call twice. */
  stop(): Promise<void>;
}

export interface TestUsdc {
  address: Address;
  abi: Abi;
  chain: Chain;
  deployer: HDAccount;
  publicClient: PublicClient<Transport, Chain>;
  walletClient: WalletClient<Transport, Chain, LocalAccount>;
  /** Owner-only mint of `amountMicros` (6 decimals: 1 USDC = 1_000_000n). */
  mint(to: Address, amountMicros: bigint): Promise<void>;
  balanceOf(account: Address): Promise<bigint>;
  /** The blacklist stand-in: transfers from or to a blocked account revert. */
  setBlocked(account: Address, blocked: boolean): Promise<void>;
}

// ---- locating the binary ---------------------------------------------------------------------------------

interface AnvilCommand {
  command: string;
  /** Arguments before anvil's own (the launcher script when anvil runs through node). */
  prefix: string[];
  /** The node launcher forwards SIGTERM to anvil; a SIGKILL to it would orphan anvil. */
  launcher: boolean;
}

const requireFromHere = createRequire(import.meta.url);
// As @foundry-rs/anvil's const.mjs names its per-platform packages.
const PLATFORMS: Partial<Record<string, string>> = { darwin: 'darwin', linux: 'linux', win32: 'win32' };
const ARCHES: Partial<Record<string, string>> = { x64: 'amd64', arm64: 'arm64' };

function resolveAnvil(): AnvilCommand | undefined {
  const platform = PLATFORMS[process.platform];
  const arch = ARCHES[process.arch];
  const exe = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  if (platform !== undefined && arch !== undefined) {
    try {
      const binary = requireFromHere.resolve(`@foundry-rs/anvil-${platform}-${arch}/bin/${exe}`);
      return { command: binary, prefix: [], launcher: false };
    } catch {
      // no platform package installed: try the launcher, which also knows a dist/ fallback
    }
  }
  try {
    const launcher = requireFromHere.resolve('@foundry-rs/anvil/bin.mjs');
    return { command: process.execPath, prefix: [launcher], launcher: true };
  } catch {
    return undefined;
  }
}

/** Whether anvil can run here; throws under CI=true so a missing anvil fails the run instead of skipping. */
export async function anvilAvailable(): Promise<ServiceProbe> {
  const anvil = resolveAnvil();
  let why = 'the @foundry-rs/anvil package is not installed';
  if (anvil !== undefined) {
    const run = spawnSync(anvil.command, [...anvil.prefix, '--version'], {
      encoding: 'utf8',
      timeout: VERSION_TIMEOUT_MS,
    });
    if (run.status === 0) return { available: true };
    const detail = run.error?.message ?? (run.stderr.trim() || `exit status ${run.status}`);
    why = `\`anvil --version\` failed: ${detail.split('\n')[0]}`;
  }
  if (process.env.CI === 'true') {
    throw new Error(`CI=true requires anvil (npm package @foundry-rs/anvil), but ${why}`);
  }
  return { available: false, skip: `anvil not available (${why}); skipping (CI=true requires it)` };
}

// ---- process lifecycle -----------------------------------------------------------------------------------

// Every anvil still running when this process exits (a crashed or killed-by-timeout test) is killed with it;
// 'exit' handlers may only do synchronous work, and kill() is synchronous.
const running = new Map<ChildProcess, NodeJS.Signals>();
let exitHookInstalled = false;

function killOnExit(child: ChildProcess, signal: NodeJS.Signals): void {
  running.set(child, signal);
  child.once('exit', () => running.delete(child));
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const [orphan, orphanSignal] of running) orphan.kill(orphanSignal);
  });
}

/** Whether `promise` settles within `timeoutMs`; the timer never outlives the wait. */
async function within(promise: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((done) => {
    timer = setTimeout(() => done(false), timeoutMs);
  });
  try {
    return await Promise.race([promise.then(() => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** SIGTERM (anvil exits at once), SIGKILL if it hangs; resolves once the process and its pipes are gone. */
async function stopChild(child: ChildProcess, gone: Promise<void>, launcher: boolean): Promise<void> {
  if (child.pid === undefined) return; // never spawned
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  if (await within(gone, STOP_TIMEOUT_MS)) return;
  // Through the launcher SIGKILL would orphan anvil, so say so instead.
  if (launcher) throw new Error(`anvil (pid ${child.pid}) did not stop within ${STOP_TIMEOUT_MS} ms`);
  child.kill('SIGKILL');
  if (!(await within(gone, STOP_TIMEOUT_MS))) throw new Error(`anvil (pid ${child.pid}) survived SIGKILL`);
}

/**
 * A fresh anvil on a free 127.0.0.1 port, chain id 31337, accounts from ANVIL_MNEMONIC. Automines each
 * transaction unless `blockTimeSeconds` is given. Resolves once `eth_chainId` answers (bounded).
 */
export async function startAnvil(options: { blockTimeSeconds?: number } = {}): Promise<Anvil> {
  const command = resolveAnvil();
  if (command === undefined) throw new Error('anvil not found: is the @foundry-rs/anvil package installed?');
  let lastError: unknown;
  // freePort() closes its probe before anvil binds, so another process can take the port in between: retry.
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
    try {
      return await launch(command, await freePort(), options.blockTimeSeconds);
    } catch (error) {
      lastError = error;
      if (!(error instanceof Error && /address already in use/i.test(error.message))) throw error;
    }
  }
  throw lastError;
}

async function launch(command: AnvilCommand, port: number, blockTimeSeconds?: number): Promise<Anvil> {
  const args = [
    ...command.prefix,
    ...['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(ANVIL_CHAIN_ID)],
    ...['--mnemonic', ANVIL_MNEMONIC, '--silent'],
    ...(blockTimeSeconds === undefined ? [] : ['--block-time', String(blockTimeSeconds)]),
  ];
  const child = spawn(command.command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  // 'close', not 'exit': the stderr pipe must be closed too, or the test runner reports it as a leaked handle.
  const gone = new Promise<void>((done) => child.once('close', () => done()));
  killOnExit(child, command.launcher ? 'SIGTERM' : 'SIGKILL');
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL_CHARS);
  });
  const spawnError = new Promise<Error>((done) => child.once('error', done));
  const rpcUrl = `http://127.0.0.1:${port}`;
  const stop = () => stopChild(child, gone, command.launcher);
  const failure = await waitUntilReady(rpcUrl, child, spawnError);
  if (failure !== undefined) {
    await stop().catch(() => undefined);
    throw new Error(`anvil did not start on port ${port}: ${failure}\n${stderr}`);
  }
  return { rpcUrl, chainId: ANVIL_CHAIN_ID, mnemonic: ANVIL_MNEMONIC, stop };
}

/** undefined once anvil answers `eth_chainId` with the expected id; otherwise why not. */
async function waitUntilReady(
  rpcUrl: string,
  child: ChildProcess,
  spawnError: Promise<Error>,
): Promise<string | undefined> {
  let failed: string | undefined;
  void spawnError.then((error) => {
    failed = `spawn failed: ${error.message}`;
  });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    // Pause before each probe, the first included: an anvil that lost its port to another process (see
    // startAnvil) exits within ~40 ms, and until it has, that other process could answer in its place.
    await sleep(READY_POLL_MS);
    if (failed !== undefined) return failed;
    if (child.exitCode !== null || child.signalCode !== null) {
      return `exited early (${child.exitCode ?? child.signalCode})`;
    }
    const chainId = await rpcCall(rpcUrl, 'eth_chainId', [], 1_000).catch(() => undefined);
    if (chainId === undefined) continue;
    if (child.exitCode !== null || child.signalCode !== null) continue; // reported on the next pass
    return chainId === numberToHex(ANVIL_CHAIN_ID) ? undefined : `unexpected chain id ${String(chainId)}`;
  }
  return `no answer to eth_chainId within ${READY_TIMEOUT_MS} ms`;
}

// ---- JSON-RPC helpers (re-org tests) ---------------------------------------------------------------------

async function rpcCall(
  rpcUrl: string,
  method: string,
  params: unknown[],
  timeoutMs: number,
): Promise<unknown> {
  const response = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = (await response.json()) as { result?: unknown; error?: { message?: string } };
  if (body.error !== undefined) {
    throw new Error(`${method}: ${body.error.message ?? JSON.stringify(body.error)}`);
  }
  return body.result;
}

/** One raw JSON-RPC call to `anvil`, bounded by a timeout. */
export function rpc(anvil: Anvil, method: string, params: unknown[] = []): Promise<unknown> {
  return rpcCall(anvil.rpcUrl, method, params, RPC_TIMEOUT_MS);
}

/** Mines `blocks` empty blocks at once (anvil_mine), e.g. to reach a confirmation depth. */
export async function mine(anvil: Anvil, blocks: number): Promise<void> {
  if (!Number.isSafeInteger(blocks) || blocks < 1) {
    throw new Error(`mine: blocks must be >= 1, got ${blocks}`);
  }
  await rpc(anvil, 'anvil_mine', [numberToHex(blocks)]);
}

/** The chain's current state (evm_snapshot); `revert` returns to it. An id can be reverted to only once. */
export async function snapshot(anvil: Anvil): Promise<string> {
  const id = await rpc(anvil, 'evm_snapshot');
  if (typeof id !== 'string') throw new Error(`evm_snapshot returned ${JSON.stringify(id)}`);
  return id;
}

/** Drops every block mined since `snapshot` returned `id`: a re-org that removes them. */
export async function revert(anvil: Anvil, id: string): Promise<void> {
  const ok = await rpc(anvil, 'evm_revert', [id]);
  if (ok !== true) throw new Error(`evm_revert(${id}) failed: no such snapshot`);
}

// ---- viem clients and the token --------------------------------------------------------------------------

export function anvilChain(anvil: Anvil): Chain {
  return defineChain({
    id: anvil.chainId,
    name: 'anvil (test)',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [anvil.rpcUrl] } },
  });
}

// Local chain: poll fast and never serve a cached block number (re-org tests read it right after a revert).
const transportFor = (anvil: Anvil) => http(anvil.rpcUrl, { timeout: RPC_TIMEOUT_MS, retryCount: 0 });

export function anvilPublicClient(anvil: Anvil): PublicClient<Transport, Chain> {
  return createPublicClient({
    chain: anvilChain(anvil),
    transport: transportFor(anvil),
    pollingInterval: 50,
    cacheTime: 0,
  });
}

export function anvilWalletClient(
  anvil: Anvil,
  account: LocalAccount,
): WalletClient<Transport, Chain, LocalAccount> {
  return createWalletClient({
    account,
    chain: anvilChain(anvil),
    transport: transportFor(anvil),
    pollingInterval: 50,
    cacheTime: 0,
  });
}

/** Waits (bounded) for `hash` to be mined and throws unless it succeeded. */
export async function confirm(
  publicClient: PublicClient<Transport, Chain>,
  hash: Hash,
  what: string,
): Promise<void> {
  const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: RECEIPT_TIMEOUT_MS });
  if (receipt.status !== 'success') throw new Error(`${what} (${hash}) reverted`);
}

/** Deploys a fresh TestUSDC from mnemonic index DEPLOYER_INDEX, its owner. */
export async function deployTestUsdc(anvil: Anvil): Promise<TestUsdc> {
  const deployer = mnemonicToAccount(anvil.mnemonic, { addressIndex: DEPLOYER_INDEX });
  const publicClient = anvilPublicClient(anvil);
  const walletClient = anvilWalletClient(anvil, deployer);
  const hash = await walletClient.deployContract({ abi: testUsdcAbi, bytecode: testUsdcBytecode });
  const receipt = await publicClient.waitForTransactionReceipt({ hash, timeout: RECEIPT_TIMEOUT_MS });
  if (receipt.status !== 'success' || !receipt.contractAddress) {
    throw new Error(`TestUSDC deployment ${hash} failed`);
  }
  const address = receipt.contractAddress;
  const write = async (functionName: string, args: unknown[]) => {
    const txHash = await walletClient.writeContract({ address, abi: testUsdcAbi, functionName, args });
    await confirm(publicClient, txHash, `TestUSDC.${functionName}`);
  };
  return {
    address,
    abi: testUsdcAbi,
    chain: walletClient.chain,
    deployer,
    publicClient,
    walletClient,
    mint: (to, amountMicros) => write('mint', [to, amountMicros]),
    setBlocked: (account, blocked) => write('setBlocked', [account, blocked]),
    async balanceOf(account) {
      const balance = await publicClient.readContract({
        address,
        abi: testUsdcAbi,
        functionName: 'balanceOf',
        args: [account],
      });
      if (typeof balance !== 'bigint') throw new Error(`balanceOf returned ${String(balance)}`);
      return balance;
    },
  };
}
