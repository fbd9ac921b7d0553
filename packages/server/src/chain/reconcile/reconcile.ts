// `agent-wallet verify-ledger --chain`: the ledger against the chain, a proof of reserves. Each way money moves on
// chain is a part of its own (part.ts): deposits and the outbox's transfers (transfers.ts), paid requests by the
// authorization their payment method signs (paid-requests.ts), and in bounded mode the delegation's redemptions
// (redemptions.ts); here only what they share.
// 1. Holdings cover liabilities: USDC at the treasury plus at every deposit address is at least every wallet's
//    balance and holds plus the payouts not yet mined (still owed to someone, still in the treasury).
// 2. Every USDC transfer touching a service address matches exactly one record: a deposit (chain_deposits), a
//    sweep or a payout (chain_outbox, by mined or signed hash) — and every credited deposit and completed
//    payout is on chain. Anything else (a transfer to the treasury nobody recorded, a payout the chain never saw)
//    is named. A paid request is matched by its settlement: a Permit2 authorization (x402 `upto`) by a transfer
//    of at most its maximum (exactly its settled amount once completed); in flight it counts as owed at its
//    maximum, less what the chain already moved.
// Bounded mode (TREASURY_MODE=bounded): the owners' account holds the reserves with the float, deposits sweep into
// it and refills (redemptions of the delegation) move from it to the float, each matched to its outbox row. Other
// transfers of the account are the owners' own (their top-ups, what they sign out): not the ledger's to know,
// and the holdings check still catches any that leaves the ledger uncovered.

import type { Kysely } from 'kysely';
import { formatMicros } from '../../domain/money.ts';
import type { Database } from '../../store/schema.ts';
import type { ChainClient } from '../client.ts';
import type { EvmConfig } from '../config.ts';
import { type ChainTransfer, fetchTransfers } from '../deposits.ts';
import { CHAIN_HISTORY_START_SETTING } from '../setup.ts';
import { usdcAbi } from '../token.ts';
import { paidRequestsPart } from './paid-requests.ts';
import { type BlockSpan, type ChainPart, type Report, type Scope, scanRanges, transferName } from './part.ts';
import { redemptionsPart } from './redemptions.ts';
import { depositsPart, outboxPart } from './transfers.ts';

const PROBLEMS_MAX = 100;

export interface ChainReport {
  ok: boolean;
  holdingsMicros: bigint;
  /** Of the holdings: the service key's USDC (the treasury; bounded mode's float). */
  floatMicros: bigint;
  /** Of the holdings: the owners' account (bounded mode; null in hot mode). */
  accountMicros: bigint | null;
  /** Of the holdings: the deposit addresses' USDC not yet swept. */
  depositAddressesMicros: bigint;
  liabilitiesMicros: bigint;
  /**
   * Of the liabilities: what is in flight beyond the wallets' balances — payouts not yet mined, withdrawals
   * waiting for (or signed by) the owners, paid requests not yet settled.
   */
  inFlightMicros: bigint;
  transfers: number;
  problems: string[];
}

export async function reconcileChain(
  db: Kysely<Database>,
  client: ChainClient,
  config: EvmConfig,
  treasury: string,
  /** Bounded mode: the owners' account (lower-case); null in hot mode. */
  account: string | null = null,
): Promise<ChainReport> {
  const problems: string[] = [];
  const report: Report = (p) => {
    if (problems.length < PROBLEMS_MAX) problems.push(p);
  };
  const wallets = await db.selectFrom('wallets').select('address').execute();
  const scope: Scope = {
    treasury,
    usdcAddress: config.usdcAddress,
    wallets: new Set(wallets.map((w) => w.address)),
    account,
  };
  const head = await client.getBlockNumber({ cacheTime: 0 });
  const blocks = { from: await historyStart(db, config), to: head };
  // The order is the claim order: a treasury transfer is an outbox payout before it is a paid request's.
  const parts = [
    await depositsPart(db, scope),
    await outboxPart(db, scope),
    await paidRequestsPart(db, scope),
    await redemptionsPart(db, client, config, scope, blocks),
  ];
  const transfers = await scanTransfers(client, config, blocks);
  for (const transfer of transfers) offer(scope, parts, transfer, report);
  for (const part of parts) part.reportUnmatched(report);
  const held = await holdings(client, config, [treasury, ...parts.flatMap((p) => p.holdingAddresses())]);
  const { balancesMicros, inFlightMicros } = await liabilities(db, client, parts);
  const liabilitiesMicros = balancesMicros + inFlightMicros;
  if (held.totalMicros < liabilitiesMicros) {
    report(
      `on-chain holdings ${formatMicros(held.totalMicros)} USDC do not cover the ledger's liabilities ${formatMicros(liabilitiesMicros)} USDC (short by ${formatMicros(liabilitiesMicros - held.totalMicros)})`,
    );
  }
  const floatMicros = held.byAddress.get(treasury) ?? 0n;
  const accountMicros = account === null ? null : (held.byAddress.get(account) ?? 0n);
  return {
    ok: problems.length === 0,
    holdingsMicros: held.totalMicros,
    floatMicros,
    accountMicros,
    depositAddressesMicros: held.totalMicros - floatMicros - (accountMicros ?? 0n),
    liabilitiesMicros,
    inFlightMicros,
    transfers: transfers.length,
    problems,
  };
}

/**
 * A transfer touching the service's addresses is some part's, or the ledger does not know it. In bounded mode the
 * owners' own transfers of their account are theirs, not the ledger's to know — but one that pays a withdrawal
 * they signed through the service must match its row (the holdings check catches any other that leaves the
 * ledger uncovered).
 */
function offer(scope: Scope, parts: readonly ChainPart[], t: ChainTransfer, report: Report): void {
  const ours = [t.from, t.to].some((a) => a === scope.treasury || scope.wallets.has(a));
  const owners = scope.account !== null && t.from === scope.account;
  if (!ours && !owners) return;
  const claimed = parts.some((part) => part.claim(t, report));
  if (!claimed && ours) report(`${transferName(t)}: the ledger does not know it`);
}

async function historyStart(db: Kysely<Database>, config: EvmConfig): Promise<bigint> {
  const setting = await db
    .selectFrom('service_settings')
    .select('value')
    .where('key', '=', CHAIN_HISTORY_START_SETTING)
    .executeTakeFirst();
  // Not the watcher's cursor or start: a database from before the history start was recorded may have started
  // its watcher too late, and the transfers it missed are exactly what this scan must find.
  return setting === undefined ? (config.startBlock ?? 0n) : BigInt(setting.value);
}

async function scanTransfers(client: ChainClient, config: EvmConfig, blocks: BlockSpan) {
  const transfers: ChainTransfer[] = [];
  for (const { from, to } of scanRanges(blocks)) {
    transfers.push(...(await fetchTransfers(client, config.usdcAddress, from, to)));
  }
  return transfers;
}

/** The USDC at each address (each counted once) and their total. */
async function holdings(client: ChainClient, config: EvmConfig, addresses: readonly string[]) {
  const byAddress = new Map<string, bigint>();
  let totalMicros = 0n;
  for (const address of new Set(addresses)) {
    const micros = await client.readContract({
      address: config.usdcAddress as `0x${string}`,
      abi: usdcAbi,
      functionName: 'balanceOf',
      args: [address as `0x${string}`],
    });
    byAddress.set(address, micros);
    totalMicros += micros;
  }
  return { byAddress, totalMicros };
}

/** Every wallet balance and hold, and what each part still owes out of the holdings beyond them. */
async function liabilities(db: Kysely<Database>, client: ChainClient, parts: readonly ChainPart[]) {
  const { total } = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<bigint>('balance_micros'), eb.val(0n)).as('total'))
    .where('allow_negative', '=', 0n)
    .executeTakeFirstOrThrow();
  let inFlightMicros = 0n;
  for (const part of parts) inFlightMicros += await part.owedMicros(client);
  return { balancesMicros: BigInt(total), inFlightMicros };
}
