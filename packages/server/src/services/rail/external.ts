// The outside world a payment to an address that is no wallet of this service settles in (contract section 4):
// `sandbox` or `evm`, one per deployment, chosen when the service opens. What the other services ask of it is
// declared here once — its name and whether money leaving through it is final at once (the money batch), where
// wallets' deposit addresses come from, whether a payout can be made now, and its part of the health reading — so
// that nothing above branches on which rail runs. A new rail is a new implementation of this interface.
import type { Kysely } from 'kysely';
import type { Rail } from '../../chain/config.ts';
import type { EvmRail } from '../../chain/rail.ts';
import { treasuryReasons, treasuryView } from '../../chain/treasury-view.ts';
import { withinMs } from '../../clock.ts';
import type { Database } from '../../store/schema.ts';
import type { PayoutGate } from '../money/payments.ts';
import { type AddressSource, hdAddresses, sandboxAddresses } from '../wallets/addresses.ts';

/** The rail's part of GET /health: what is wrong with it in words, and the treasury it shows (evm). */
export interface RailHealth {
  reasons: string[];
  treasury?: { address: string; gasWei: string; usdc: string } | null;
}

export interface ExternalRail {
  name: Rail;
  /** Money paid out is final at once (`completed`), or `processing` until the rail confirms it. */
  settlesAtOnce: boolean;
  /** The address payouts leave from; null where nothing leaves a real account. */
  payoutFromAddress: string | null;
  /** Where a new wallet's deposit address comes from. */
  addresses: AddressSource;
  /** Refuses (503) a payout to an outside address that cannot be made now; null where every payout can. */
  payoutGate: PayoutGate;
  /** Read within `timeoutMs`: a rail that does not answer in time is reported, never waited for. */
  health(timeoutMs: number): Promise<RailHealth>;
}

/** The simulated outside world: payouts are final at once, addresses derived from the service's secret. */
export function sandboxRail(addressSecret: Uint8Array): ExternalRail {
  return {
    name: 'sandbox',
    settlesAtOnce: true,
    payoutFromAddress: null,
    addresses: sandboxAddresses(addressSecret),
    payoutGate: null,
    health: async () => ({ reasons: [] }),
  };
}

/** USDC on an EVM chain: payouts leave the treasury and confirm later; addresses from the service's HD keys. */
export function evmExternalRail(evm: EvmRail, db: Kysely<Database>): ExternalRail {
  return {
    name: 'evm',
    settlesAtOnce: false,
    payoutFromAddress: evm.treasuryAddress,
    addresses: hdAddresses(evm.keys),
    payoutGate: (toAddress, amountMicros) => evm.treasury.checkPayout(db, toAddress, amountMicros),
    async health(timeoutMs) {
      const treasury = await withinMs(evm.treasury.read(), timeoutMs).catch(() => null);
      return {
        reasons: treasuryReasons(treasury, evm.config.minTreasuryGasWei),
        treasury: treasuryView(treasury),
      };
    },
  };
}
