// The parts of verify-ledger --chain that move USDC by plain transfers: deposits into the wallets' addresses
// (chain_deposits) and the outbox's transactions out of them and the treasury (chain_outbox: sweeps, payouts). In
// bounded mode deposits sweep into the owners' account, refills (redemptions of the delegation) move from it to
// the float, what the float holds above its ceiling moves back into it (float_return: a hot treasury's switch),
// and a withdrawal the owners signed moves from it to its address (owners_op), each matched to its row.
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.ts';
import type { ChainClient } from '../client.ts';
import type { ChainTransfer } from '../deposits.ts';
import { firstReceipt } from '../sender.ts';
import { type ChainPart, type Report, type Scope, transferName } from './part.ts';

/** A deposit: a transfer into a wallet's address from anyone but the service. */
export async function depositsPart(db: Kysely<Database>, scope: Scope): Promise<ChainPart> {
  const rows = await db.selectFrom('chain_deposits').selectAll().execute();
  const deposits = new Map(
    rows.map((d) => [
      `${d.tx_hash}:${d.log_index}`,
      { amountMicros: d.amount_micros, status: d.status, matched: false },
    ]),
  );
  return {
    claim(t, report) {
      const fromService = scope.wallets.has(t.from) || t.from === scope.treasury;
      if (!scope.wallets.has(t.to) || fromService) return false;
      const deposit = deposits.get(`${t.txHash}:${t.logIndex}`);
      if (deposit === undefined || deposit.amountMicros !== t.valueMicros)
        report(`${transferName(t)}: no deposit record matches it`);
      else deposit.matched = true;
      return true;
    },
    reportUnmatched(report) {
      for (const [key, deposit] of deposits) {
        if (deposit.status === 'credited' && !deposit.matched)
          report(`credited deposit ${key} is not on chain`);
      }
    },
    owedMicros: async () => 0n,
    // Addresses that ever received a deposit: where unswept USDC can be.
    holdingAddresses: () => [...new Set(rows.map((d) => d.to_address))],
  };
}

interface OutboxRow {
  id: string;
  transactionId: string | null;
  kind: string;
  to: string;
  amountMicros: bigint;
  hashes: Set<string>;
  status: string;
  matched: boolean;
}

/** The outbox's transfers: a sweep (a wallet's address to the treasury), a payout (the treasury to the world). */
export async function outboxPart(db: Kysely<Database>, scope: Scope): Promise<ChainPart> {
  const rows: OutboxRow[] = (await db.selectFrom('chain_outbox').selectAll().execute()).map((o) => ({
    id: o.id,
    transactionId: o.transaction_id,
    kind: o.kind,
    to: o.to_address,
    amountMicros: o.amount_micros,
    hashes: new Set(
      [...(JSON.parse(o.tx_hashes_json) as string[]), o.mined_tx_hash ?? ''].map((h) => h.toLowerCase()),
    ),
    status: o.status,
    matched: false,
  }));
  return {
    claim(t) {
      const kind = outboxKindOf(scope, t);
      // The account to the float is a refill — or the owners' top-up an agent's x402 or MPP payment waited for.
      const kinds = kind === 'refill' ? ['refill', 'owners_op'] : [kind];
      const row = rows.find(
        (o) =>
          kinds.includes(o.kind) &&
          !o.matched &&
          o.hashes.has(t.txHash) &&
          o.amountMicros === t.valueMicros &&
          o.to === t.to,
      );
      if (row === undefined) return false;
      row.matched = true;
      return true;
    },
    reportUnmatched(report: Report) {
      for (const row of rows) {
        if (row.status === 'completed' && !row.matched && movesUsdc(row))
          report(`${row.kind} ${row.id} is completed but not on chain`);
      }
    },
    owedMicros: (client) => payoutsNotMined(client, rows),
    holdingAddresses: () => [],
  };
}

function outboxKindOf(scope: Scope, t: ChainTransfer): string | null {
  // Into the treasury's key (hot mode, and the sweeps of a hot deployment before it switched to bounded) or the
  // owners' account (bounded mode).
  if (scope.wallets.has(t.from) && (t.to === scope.treasury || t.to === scope.account)) return 'sweep';
  if (scope.account !== null && t.from === scope.account)
    return t.to === scope.treasury ? 'refill' : 'owners_op';
  if (scope.account !== null && t.from === scope.treasury && t.to === scope.account) return 'float_return';
  if (t.from === scope.treasury && !scope.wallets.has(t.to)) return 'payout';
  return null;
}

/** An approval (of Permit2) moves no USDC, nor does an owners' operation without a payment (a revocation). */
function movesUsdc(row: OutboxRow): boolean {
  if (row.kind === 'approve') return false;
  return row.kind !== 'owners_op' || row.transactionId !== null;
}

const UNSENT_STATUSES: ReadonlySet<string> = new Set(['awaiting_signatures', 'queued', 'sent']);

/**
 * Payments whose transfer is not yet in a block: owed to someone, still held — a payout, or a withdrawal waiting
 * for (or signed by) the owners.
 */
async function payoutsNotMined(client: ChainClient, rows: readonly OutboxRow[]): Promise<bigint> {
  let owed = 0n;
  for (const row of rows) {
    const payment = row.kind === 'payout' || (row.kind === 'owners_op' && row.transactionId !== null);
    if (!payment || !UNSENT_STATUSES.has(row.status)) continue;
    const hashes = [...row.hashes].filter((h) => h !== '') as `0x${string}`[];
    if ((await firstReceipt(client, hashes)) === null) owed += row.amountMicros;
  }
  return owed;
}
