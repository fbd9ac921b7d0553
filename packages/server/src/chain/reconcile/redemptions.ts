// Bounded mode's part of verify-ledger --chain: every redemption of a delegation from the owners' account must be
// one of the service's refills (by transaction hash). One that is not — whoever holds the service's key redeeming
// it elsewhere — is named. It claims no transfer: the USDC it moved shows as a transfer of the account.
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.ts';
import type { ChainClient } from '../client.ts';
import type { EvmConfig } from '../config.ts';
import { type BlockSpan, type ChainPart, type Scope, scanRanges } from './part.ts';

export async function redemptionsPart(
  db: Kysely<Database>,
  client: ChainClient,
  config: EvmConfig,
  scope: Scope,
  blocks: BlockSpan,
): Promise<ChainPart> {
  const problems: string[] = [];
  if (scope.account !== null && config.bounded !== null) {
    const refills = await db
      .selectFrom('chain_outbox')
      .select(['tx_hashes_json', 'mined_tx_hash'])
      .where('kind', '=', 'refill')
      .execute();
    const hashes = new Set(
      refills
        .flatMap((r) => [...(JSON.parse(r.tx_hashes_json) as string[]), r.mined_tx_hash ?? ''])
        .map((h) => h.toLowerCase()),
    );
    for (const hash of await redemptionHashes(client, config, scope.account, blocks)) {
      if (!hashes.has(hash))
        problems.push(`redemption ${hash} of the owners' delegation is not a refill of the service`);
    }
  }
  return {
    claim: () => false,
    reportUnmatched(report) {
      for (const problem of problems) report(problem);
    },
    owedMicros: async () => 0n,
    holdingAddresses: () => (scope.account === null ? [] : [scope.account]),
  };
}

/** The transactions that redeemed a delegation whose root is the account (DelegationManager's own event). */
async function redemptionHashes(
  client: ChainClient,
  config: EvmConfig,
  account: string,
  blocks: BlockSpan,
): Promise<string[]> {
  // Loaded in bounded mode only: a hot deployment never loads the framework's code.
  const { DelegationManager } = await import('@metamask/delegation-abis');
  const event = DelegationManager.find((item) => item.type === 'event' && item.name === 'RedeemedDelegation');
  const found: string[] = [];
  for (const { from, to } of scanRanges(blocks)) {
    const logs = await client.getLogs({
      address: config.bounded!.framework.delegationManager,
      event: event as Extract<(typeof DelegationManager)[number], { name: 'RedeemedDelegation' }>,
      args: { rootDelegator: account as `0x${string}` },
      fromBlock: from,
      toBlock: to,
    });
    found.push(...logs.map((log) => log.transactionHash.toLowerCase()));
  }
  return found;
}
