// The buyer of the crash tests (x402-crash, mpp-crash, x402-upto's): a service run as real processes on one data
// directory and the evm rail of an anvil world — an owner whose master wallet received 100 USDC (swept to the
// treasury), an agent wallet funded with 50 and its key — so a test can start a process that kills itself at a
// crash point, restart it, and judge what the chain and verify-ledger --chain say.
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Address, parseAbiItem } from 'viem';
import { type EvmWorld, evmEnv } from './evm.ts';
import { GENEROUS_RATE_LIMITS } from './harness.ts';
import { type ServiceProcess, startServiceProcess } from './processes.ts';
import { request, waitFor } from './service-http.ts';

const CLI = resolve(import.meta.dirname, '../../bin/agent-wallet.js');
export const CRASH_WAIT_MS = 20_000;
const MASTER_MICROS = 100_000_000n;

export interface CrashBuyer {
  env: Record<string, string>;
  token: string;
  walletId: string;
  agentKey: string;
  /** Starts a service process on the buyer's data (with extra environment, e.g. a crash point). */
  start(extra?: Record<string, string>): Promise<ServiceProcess>;
  /** The agent wallet's balance as the service shows it. */
  balanceOf(service: ServiceProcess): Promise<string>;
  /** Every USDC transfer to an address since the chain began. */
  transfersTo(address: Address): Promise<Array<{ args: { from?: Address; to?: Address; value?: bigint } }>>;
  /** `agent-wallet verify-ledger --chain` on the buyer's data. */
  verifyChain(): SpawnSyncReturns<string>;
  close(): Promise<void>;
}

/**
 * The buyer set up through a first process, which `prepare` may still use (the metered test lets it send the
 * treasury's Permit2 approval) before it stops.
 */
export async function startCrashBuyer(
  world: EvmWorld,
  name: string,
  prepare?: (service: ServiceProcess, buyer: CrashBuyer) => Promise<void>,
): Promise<CrashBuyer> {
  const dataDir = mkdtempSync(join(tmpdir(), `agent-wallet-${name}-`));
  const env = {
    ...evmEnv(world, { CONFIRMATIONS: '1', CHAIN_POLL_INTERVAL_MS: '100', SENDER_LEASE_MS: '1000' }),
    DATA_DIR: dataDir,
    JWT_SECRET: `${name}-test-secret-of-at-least-32-characters`,
    RATE_LIMITS: GENEROUS_RATE_LIMITS,
    X402_ALLOW_PRIVATE: 'true',
  };
  const started: ServiceProcess[] = [];
  const buyer: CrashBuyer = {
    env,
    token: '',
    walletId: '',
    agentKey: '',
    async start(extra = {}) {
      const service = await startServiceProcess({ ...env, ...extra });
      started.push(service);
      return service;
    },
    balanceOf: async (service) =>
      (await request(service.url, 'GET', `/api/v1/agent-wallets/${buyer.walletId}`, buyer.token)).body.data
        .balance,
    transfersTo: (address) =>
      world.usdc.publicClient.getLogs({
        address: world.usdc.address,
        event: parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)'),
        args: { to: address },
        fromBlock: 0n,
      }),
    verifyChain: () =>
      spawnSync(process.execPath, [CLI, 'verify-ledger', '--chain'], {
        env: { ...process.env, ...env },
        encoding: 'utf8',
        timeout: 60_000,
      }),
    async close() {
      for (const service of started) await service.kill();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  const service = await buyer.start();
  await fundBuyer(world, service, buyer, name);
  await prepare?.(service, buyer);
  await service.stop();
  return buyer;
}

/** Signup, 100 USDC to the master wallet (swept to the treasury), an agent wallet funded with 50, its key. */
async function fundBuyer(world: EvmWorld, service: ServiceProcess, buyer: CrashBuyer, name: string) {
  const signup = await request(service.url, 'POST', '/api/v1/auth/signup', undefined, {
    email: `${name}@example.test`,
    password: 'a long enough password',
  });
  buyer.token = signup.body.data.token;
  const master = (await request(service.url, 'GET', '/api/v1/wallet', buyer.token)).body.data;
  await world.usdc.mint(master.address, MASTER_MICROS);
  await waitFor(
    'the deposit is swept to the treasury',
    async () => (await world.usdc.balanceOf(world.treasury)) === MASTER_MICROS,
    CRASH_WAIT_MS,
  );
  const wallet = await request(service.url, 'POST', '/api/v1/agent-wallets', buyer.token, { label: 'buyer' });
  buyer.walletId = wallet.body.data.id;
  await request(service.url, 'POST', `/api/v1/agent-wallets/${buyer.walletId}/fund`, buyer.token, {
    amount: '50',
  });
  const key = await request(
    service.url,
    'POST',
    `/api/v1/agent-wallets/${buyer.walletId}/keys`,
    buyer.token,
    {
      label: 'k',
    },
  );
  buyer.agentKey = key.body.data.key;
}
