// `agent-wallet verify-ledger --chain`: the ledger against the chain, a proof of reserves.
// 1. Holdings cover liabilities: USDC at the treasury plus at every deposit address is at least every wallet's
//    balance and holds plus the payouts not yet mined (still owed to someone, still in the treasury).
// 2. Every USDC transfer touching a service address matches exactly one record: a deposit (chain_deposits), a
//    sweep or a payout (chain_outbox, by mined or signed hash) — and every credited deposit and completed
//    payout is on chain. Anything else (a transfer to the treasury nobody recorded, a payout the chain never saw)
//    is named.
// Bounded mode (TREASURY_MODE=bounded): the owners' account holds the reserves with the float, deposits sweep into
// it and refills (redemptions of the delegation) move from it to the float, each matched to its outbox row. Other
// transfers of the account are the owners' own (their top-ups, what they sign out): not the ledger's to know,
// and the holdings check still catches any that leaves the ledger uncovered.

import type { Kysely } from 'kysely';
import { formatMicros } from '../domain/money.ts';
import type { Database } from '../store/schema.ts';
import type { ChainClient } from './client.ts';
import type { EvmConfig } from './config.ts';
import { type ChainTransfer, fetchTransfers } from './deposits.ts';
import { firstReceipt } from './sender.ts';
import { CHAIN_HISTORY_START_SETTING } from './setup.ts';
import { authorizationUsedOnChain, usdcAbi } from './token.ts';

/** Blocks per getLogs call while scanning the service's history. */
const SCAN_RANGE_BLOCKS = 2_000n;
const PROBLEMS_MAX = 100;

export interface ChainReport {
  ok: boolean;
  holdingsMicros: bigint;
  liabilitiesMicros: bigint;
  transfers: number;
  problems: string[];
}

interface Known {
  treasury: string;
  /** Bounded mode: the owners' account (lower-case); null in hot mode. */
  account: string | null;
  usdcAddress: string;
  wallets: Set<string>;
  /** Addresses that ever received a deposit: where unswept USDC can be. */
  depositAddresses: Set<string>;
  deposits: Map<string, { amountMicros: bigint; status: string; matched: boolean }>;
  outbox: Array<{
    id: string;
    kind: string;
    transactionId: string | null;
    to: string;
    amountMicros: bigint;
    hashes: Set<string>;
    status: string;
    matched: boolean;
  }>;
  /** x402 payments debited from a wallet: paid by the token when the seller uses the authorization. */
  x402: Array<{
    id: string;
    state: string;
    to: string;
    amountMicros: bigint;
    nonce: string | null;
    hash: string | null;
    matched: boolean;
  }>;
}

export async function reconcileChain(
  db: Kysely<Database>,
  client: ChainClient,
  config: EvmConfig,
  treasury: string,
  account: string | null = null,
): Promise<ChainReport> {
  const problems: string[] = [];
  const report = (p: string) => {
    if (problems.length < PROBLEMS_MAX) problems.push(p);
  };
  const known = { ...(await loadKnown(db, treasury, config.usdcAddress)), account };
  const head = await client.getBlockNumber({ cacheTime: 0 });
  const transfers = await scanTransfers(db, client, config, head);
  for (const transfer of transfers) matchTransfer(known, transfer, report);
  reportUnmatched(known, report);
  if (account !== null) await redemptionsNotOurs(db, client, config, known, head, report);
  const holdingsMicros = await holdings(client, config, known);
  const liabilitiesMicros = await liabilities(db, client, known);
  if (holdingsMicros < liabilitiesMicros) {
    report(
      `on-chain holdings ${formatMicros(holdingsMicros)} USDC do not cover the ledger's liabilities ${formatMicros(liabilitiesMicros)} USDC (short by ${formatMicros(liabilitiesMicros - holdingsMicros)})`,
    );
  }
  return {
    ok: problems.length === 0,
    holdingsMicros,
    liabilitiesMicros,
    transfers: transfers.length,
    problems,
  };
}

async function loadKnown(
  db: Kysely<Database>,
  treasury: string,
  usdcAddress: string,
): Promise<Omit<Known, 'account'>> {
  const wallets = await db.selectFrom('wallets').select('address').execute();
  const deposits = await db.selectFrom('chain_deposits').selectAll().execute();
  const outbox = await db.selectFrom('chain_outbox').selectAll().execute();
  const x402 = await db
    .selectFrom('x402_payments')
    .selectAll()
    .where('state', 'in', ['approved', 'signed', 'settled'])
    .execute();
  return {
    usdcAddress,
    x402: x402.map((x) => ({
      id: x.transaction_id,
      state: x.state,
      to: x.pay_to,
      amountMicros: x.amount_micros,
      nonce: x.nonce,
      hash: x.settle_tx_hash,
      matched: false,
    })),
    treasury,
    wallets: new Set(wallets.map((w) => w.address)),
    depositAddresses: new Set(deposits.map((d) => d.to_address)),
    deposits: new Map(
      deposits.map((d) => [
        `${d.tx_hash}:${d.log_index}`,
        { amountMicros: d.amount_micros, status: d.status, matched: false },
      ]),
    ),
    outbox: outbox.map((o) => ({
      id: o.id,
      kind: o.kind,
      transactionId: o.transaction_id,
      to: o.to_address,
      amountMicros: o.amount_micros,
      hashes: new Set(
        [...(JSON.parse(o.tx_hashes_json) as string[]), o.mined_tx_hash ?? ''].map((h) => h.toLowerCase()),
      ),
      status: o.status,
      matched: false,
    })),
  };
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

async function scanTransfers(db: Kysely<Database>, client: ChainClient, config: EvmConfig, head: bigint) {
  let from = await historyStart(db, config);
  const transfers: ChainTransfer[] = [];
  while (from <= head) {
    const to = from + SCAN_RANGE_BLOCKS - 1n < head ? from + SCAN_RANGE_BLOCKS - 1n : head;
    transfers.push(...(await fetchTransfers(client, config.usdcAddress, from, to)));
    from = to + 1n;
  }
  return transfers;
}

function matchTransfer(known: Known, t: ChainTransfer, report: (p: string) => void): void {
  const fromWallet = known.wallets.has(t.from);
  const toWallet = known.wallets.has(t.to);
  const name = `transfer ${t.txHash}:${t.logIndex} of ${formatMicros(t.valueMicros)} USDC from ${t.from} to ${t.to}`;
  // Not ours — and in bounded mode the owners' own transfers in or out of their account (a redemption of the
  // service's delegation among them is checked by its event: redemptionsNotOurs), except one that pays a
  // withdrawal they signed through the service: that one must match its row.
  if (!fromWallet && t.from !== known.treasury && !toWallet && t.to !== known.treasury) {
    if (known.account !== null && t.from === known.account) {
      const row = known.outbox.find(
        (o) =>
          o.kind === 'owners_op' &&
          !o.matched &&
          o.hashes.has(t.txHash) &&
          o.amountMicros === t.valueMicros &&
          o.to === t.to,
      );
      if (row !== undefined) row.matched = true;
    }
    return;
  }
  if (toWallet && !fromWallet && t.from !== known.treasury) {
    const deposit = known.deposits.get(`${t.txHash}:${t.logIndex}`);
    if (deposit === undefined || deposit.amountMicros !== t.valueMicros)
      report(`${name}: no deposit record matches it`);
    else deposit.matched = true;
    return;
  }
  const kind = transferKind(known, t, fromWallet, toWallet);
  const row =
    kind === null
      ? undefined
      : known.outbox.find(
          (o) =>
            o.kind === kind &&
            !o.matched &&
            o.hashes.has(t.txHash) &&
            o.amountMicros === t.valueMicros &&
            o.to === t.to,
        );
  if (row !== undefined) {
    row.matched = true;
    return;
  }
  const paid = kind === 'payout' ? matchX402(known, t) : undefined;
  if (paid === undefined) report(`${name}: the ledger does not know it`);
  else paid.matched = true;
}

/**
 * Bounded mode: every redemption of a delegation from the owners' account must be one of the service's refills
 * (by transaction hash). One that is not — whoever holds the service's key redeeming it elsewhere — is named.
 */
async function redemptionsNotOurs(
  db: Kysely<Database>,
  client: ChainClient,
  config: EvmConfig,
  known: Known,
  head: bigint,
  report: (p: string) => void,
): Promise<void> {
  const { DelegationManager } = await import('@metamask/delegation-abis');
  const event = DelegationManager.find((item) => item.type === 'event' && item.name === 'RedeemedDelegation');
  const refills = known.outbox.filter((o) => o.kind === 'refill');
  let from = await historyStart(db, config);
  while (from <= head) {
    const to = from + SCAN_RANGE_BLOCKS - 1n < head ? from + SCAN_RANGE_BLOCKS - 1n : head;
    const logs = await client.getLogs({
      address: config.bounded!.framework.delegationManager,
      event: event as Extract<(typeof DelegationManager)[number], { name: 'RedeemedDelegation' }>,
      args: { rootDelegator: known.account as `0x${string}` },
      fromBlock: from,
      toBlock: to,
    });
    for (const log of logs) {
      if (!refills.some((r) => r.hashes.has(log.transactionHash.toLowerCase())))
        report(`redemption ${log.transactionHash} of the owners' delegation is not a refill of the service`);
    }
    from = to + 1n;
  }
}

/** Which outbox row a transfer of the service's addresses must match. */
function transferKind(known: Known, t: ChainTransfer, fromWallet: boolean, toWallet: boolean) {
  const reserve = known.account ?? known.treasury;
  if (fromWallet && t.to === reserve) return 'sweep';
  if (known.account !== null && t.from === known.account && t.to === known.treasury) return 'refill';
  if (t.from === known.treasury && !toWallet) return 'payout';
  return null;
}

/** An x402 payment the transfer settles: its recorded hash, or (used but not yet seen) its payee and amount. */
function matchX402(known: Known, t: ChainTransfer) {
  const candidates = known.x402.filter(
    (x) => !x.matched && x.to === t.to && x.amountMicros === t.valueMicros && x.state !== 'approved',
  );
  return candidates.find((x) => x.hash === t.txHash) ?? candidates.find((x) => x.hash === null);
}

function reportUnmatched(known: Known, report: (p: string) => void): void {
  for (const [key, deposit] of known.deposits) {
    if (deposit.status === 'credited' && !deposit.matched) report(`credited deposit ${key} is not on chain`);
  }
  for (const row of known.outbox) {
    // An owners' operation without a payment (a revocation) moves no USDC: nothing to find.
    const movesUsdc = row.kind !== 'owners_op' || row.transactionId !== null;
    if (row.status === 'completed' && !row.matched && movesUsdc)
      report(`${row.kind} ${row.id} is completed but not on chain`);
  }
  for (const x of known.x402) {
    if (x.state === 'settled' && !x.matched) report(`x402 payment ${x.id} is settled but not on chain`);
  }
}

async function holdings(client: ChainClient, config: EvmConfig, known: Known): Promise<bigint> {
  let total = 0n;
  const reserves = known.account === null ? [known.treasury] : [known.treasury, known.account];
  for (const address of new Set([...reserves, ...known.depositAddresses])) {
    total += await client.readContract({
      address: config.usdcAddress as `0x${string}`,
      abi: usdcAbi,
      functionName: 'balanceOf',
      args: [address as `0x${string}`],
    });
  }
  return total;
}

/** Every wallet balance and hold, plus payouts whose transfer is not yet in a block (the treasury still has it). */
async function liabilities(db: Kysely<Database>, client: ChainClient, known: Known): Promise<bigint> {
  const { total } = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<bigint>('balance_micros'), eb.val(0n)).as('total'))
    .where('allow_negative', '=', 0n)
    .executeTakeFirstOrThrow();
  let owed = BigInt(total);
  for (const row of known.outbox) {
    // A payment's row not yet mined is still owed: a payout, or a withdrawal waiting for (or signed by) the owners.
    const payment = row.kind === 'payout' || (row.kind === 'owners_op' && row.transactionId !== null);
    if (!payment || !['awaiting_signatures', 'queued', 'sent'].includes(row.status)) continue;
    const hashes = [...row.hashes].filter((h) => h !== '') as `0x${string}`[];
    if ((await firstReceipt(client, hashes)) === null) owed += row.amountMicros;
  }
  return owed + (await x402InFlight(client, known));
}

/** x402 payments debited but not (yet) paid by the token: approved, or signed with the nonce still unused. */
async function x402InFlight(client: ChainClient, known: Known): Promise<bigint> {
  let owed = 0n;
  for (const x of known.x402) {
    if (x.state === 'approved') owed += x.amountMicros;
    if (x.state !== 'signed' || x.matched) continue;
    const used = await authorizationUsedOnChain(client, known.usdcAddress, known.treasury, x.nonce!);
    if (!used) owed += x.amountMicros;
  }
  return owed;
}
