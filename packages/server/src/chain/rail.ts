// The `evm` rail put together: keys from the mnemonic, the chain client, the database's agreement (setup.ts),
// and the duties that run each CHAIN_POLL_INTERVAL_MS — watch deposits, queue sweeps, send and confirm.
// Opened in two steps because the duties need the service context, which needs the rail's batch settings.
// What the duties need from the services (crediting a deposit, ending a payment) comes in the context's books.
import { randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import type { Store } from '../store/db.ts';
import type { RailContext } from './books.ts';
import { type ChainClient, createChainClient } from './client.ts';
import type { EvmConfig } from './config.ts';
import { watchDepositsOnce } from './deposits.ts';
import { type ServiceKeys, serviceKeys } from './keys.ts';
import { releaseLease } from './lease.ts';
import { senderLeaseName, sendOnce } from './sender.ts';
import { fixDepositStart, prepareRail } from './setup.ts';
import { planSweepsOnce, tokenNameReader } from './sweeps.ts';
import { createTreasuryMonitor, type TreasuryMonitor } from './treasury.ts';

export interface EvmRail {
  config: EvmConfig;
  keys: ServiceKeys;
  client: ChainClient;
  treasury: TreasuryMonitor;
  /** Lower-case treasury address: where payouts come from and sweeps go to. */
  treasuryAddress: string;
  /** This instance's sender-lease holder id. */
  holder: string;
  /** The token's EIP-712 name, read once from the contract. */
  tokenName: () => Promise<string>;
  /** Bounded mode's code (the framework's ABIs and bytecode: loaded only in that mode); null in hot mode. */
  bounded: BoundedModule | null;
  /** Where deposits are swept: the treasury key (hot), the owners' account (bounded). */
  sweepTo: `0x${string}`;
}

type BoundedModule = typeof import('./bounded/bounded.ts');

/** Checks the database agrees with this rail and fixes where deposits start (refuses to start otherwise). */
export async function openEvmRail(store: Store, config: EvmConfig): Promise<EvmRail> {
  const keys = serviceKeys(config.mnemonic);
  const treasuryAddress = keys.treasury.address.toLowerCase();
  await prepareRail(store.db, { rail: 'evm', chainId: config.chainId, treasury: treasuryAddress });
  const client = createChainClient(config);
  // Before the service hands out its first address: a start picked later (at the first watcher round) misses
  // every deposit made in between.
  await fixDepositStart(store.db, config, () => client.getBlockNumber({ cacheTime: 0 }));
  const bounded = config.bounded === null ? null : await import('./bounded/bounded.ts');
  // An account whose owners changed is adopted by its address, never recomputed from TREASURY_OWNERS.
  if (bounded !== null)
    await (await import('./bounded/owners-chain.ts')).checkComputedAccount({
      db: store.db,
      client,
      config,
      keys,
    });
  const sweepTo =
    bounded === null ? keys.treasury.address : getAddress(bounded.boundedAccount(config.bounded!, keys));
  return {
    config,
    keys,
    client,
    treasury: createTreasuryMonitor(
      client,
      config,
      keys,
      undefined,
      bounded === null ? null : () => boundedView(bounded, client, config, keys, store),
    ),
    treasuryAddress,
    holder: randomBytes(12).toString('hex'),
    tokenName: tokenNameReader(client, config),
    bounded,
    sweepTo,
  };
}

/** The bounded treasury as the monitor (health, metrics, GET /api/v1/wallet/treasury) shows it. */
async function boundedView(
  code: BoundedModule,
  client: ChainClient,
  config: EvmConfig,
  keys: ServiceKeys,
  store: Store,
) {
  const bounded = config.bounded!;
  const reading = await code.readBounded(client, config, keys, store.db);
  // The owners the account has on chain: a change the owners signed shows here, whatever the variables say.
  const { owners, threshold } = await (await import('./bounded/owners-chain.ts')).currentOwners({
    db: store.db,
    client,
    config,
    keys,
  });
  const room = bounded.floatMaxMicros - reading.floatMicros;
  const remaining =
    reading.allowance === null || reading.allowance.revoked ? 0n : reading.allowance.remainingMicros;
  const refillable = [room, remaining, reading.accountMicros].reduce((a, b) => (a < b ? a : b));
  return {
    account: reading.account,
    owners,
    threshold,
    allowanceMicros: bounded.allowanceMicros,
    periodSeconds: bounded.periodSeconds,
    remainingMicros: reading.allowance?.remainingMicros ?? null,
    resetsAtSeconds: reading.allowance?.resetsAtSeconds ?? null,
    refillableMicros: refillable > 0n ? refillable : 0n,
  };
}

export interface ChainDuties {
  watchDeposits(): Promise<unknown>;
  /** Queues sweeps and sends the outbox, if this instance holds the sender lease (`leased`). */
  send(): Promise<{ leased: boolean }>;
  /** Gives the sender lease up (clean shutdown). */
  release(): Promise<void>;
}

export function chainDuties(ctx: RailContext, rail: EvmRail, warn: (message: string) => void): ChainDuties {
  const base = { ctx, client: rail.client, config: rail.config, keys: rail.keys };
  const tokenName = rail.tokenName;
  return {
    watchDeposits: () => watchDepositsOnce({ ...base, warn }),
    async send() {
      await rail.treasury.refresh();
      const round = await sendOnce({ ...base, holder: rail.holder, warn });
      // A confirmed sweep (or payout) changed what the treasury holds: health and metrics follow at once.
      if (round.finished > 0) await rail.treasury.refresh();
      if (!round.leased) return round;
      const swept = await planSweepsOnce({ ...base, tokenName, sweepTo: rail.sweepTo });
      if (rail.bounded === null) return { ...round, swept };
      const refillMicros = await rail.bounded.planRefillOnce(base);
      // A hot treasury switched to bounded: what the float holds above its ceiling goes into the account.
      const returnedMicros = await rail.bounded.planFloatReturnOnce({ ...base, account: rail.sweepTo });
      await rail.bounded.expireUnsignedOnce(ctx);
      return { ...round, swept, refillMicros, returnedMicros };
    },
    release: () => releaseLease(ctx.store.db, senderLeaseName(rail.config), rail.holder),
  };
}
