// `agent-wallet verify-ledger --chain`: the ledger against the chain, a proof of reserves.
// 1. Holdings cover liabilities: USDC at the treasury plus at every deposit address is at least every wallet's
//    balance and holds plus the payouts not yet mined (still owed to someone, still in the treasury).
// 2. Every USDC transfer touching a service address matches exactly one record: a deposit (chain_deposits), a
//    sweep or a payout (chain_outbox, by mined or signed hash) — and every credited deposit and completed
//    payout is on chain. Anything else (a transfer to the treasury nobody recorded, a payout the chain never saw)
//    is named. A paid request is matched by its settlement: a Permit2 authorization (x402 `upto`) by a transfer
//    of at most its maximum (exactly its settled amount once completed); in flight it counts as owed at its
//    maximum, less what the chain already moved.

import type { Kysely } from 'kysely';
import { formatMicros } from '../domain/money.ts';
import type { AuthorizationKind, Database } from '../store/schema.ts';
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
  usdcAddress: string;
  wallets: Set<string>;
  /** Addresses that ever received a deposit: where unswept USDC can be. */
  depositAddresses: Set<string>;
  deposits: Map<string, { amountMicros: bigint; status: string; matched: boolean }>;
  outbox: Array<{
    id: string;
    kind: string;
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
    /** What was authorized (a maximum for Permit2). */
    amountMicros: bigint;
    authorization: AuthorizationKind;
    /** What the chain moved, once settled. */
    settledMicros: bigint | null;
    nonce: string | null;
    hash: string | null;
    matched: boolean;
    /** The value of the transfer matched to it. */
    movedMicros: bigint | null;
  }>;
}

export async function reconcileChain(
  db: Kysely<Database>,
  client: ChainClient,
  config: EvmConfig,
  treasury: string,
): Promise<ChainReport> {
  const problems: string[] = [];
  const report = (p: string) => {
    if (problems.length < PROBLEMS_MAX) problems.push(p);
  };
  const known = await loadKnown(db, treasury, config.usdcAddress);
  const head = await client.getBlockNumber({ cacheTime: 0 });
  const transfers = await scanTransfers(db, client, config, head);
  for (const transfer of transfers) matchTransfer(known, transfer, report);
  reportUnmatched(known, report);
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

async function loadKnown(db: Kysely<Database>, treasury: string, usdcAddress: string): Promise<Known> {
  const wallets = await db.selectFrom('wallets').select('address').execute();
  const deposits = await db.selectFrom('chain_deposits').selectAll().execute();
  const outbox = await db.selectFrom('chain_outbox').selectAll().execute();
  const x402 = await db
    .selectFrom('x402_payments')
    .selectAll()
    .where('state', 'in', ['approved', 'signed', 'permit_signed', 'settled'])
    .execute();
  return {
    usdcAddress,
    x402: x402.map((x) => ({
      id: x.transaction_id,
      state: x.state,
      to: x.pay_to,
      amountMicros: x.amount_micros,
      authorization: x.authorization,
      settledMicros: x.settled_micros,
      nonce: x.nonce,
      hash: x.settle_tx_hash,
      matched: false,
      movedMicros: null,
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

async function scanTransfers(db: Kysely<Database>, client: ChainClient, config: EvmConfig, head: bigint) {
  const setting = await db
    .selectFrom('service_settings')
    .select('value')
    .where('key', '=', CHAIN_HISTORY_START_SETTING)
    .executeTakeFirst();
  // Not the watcher's cursor or start: a database from before the history start was recorded may have started
  // its watcher too late, and the transfers it missed are exactly what this scan must find.
  let from = setting === undefined ? (config.startBlock ?? 0n) : BigInt(setting.value);
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
  if (!fromWallet && t.from !== known.treasury && !toWallet && t.to !== known.treasury) return; // not ours
  if (toWallet && !fromWallet && t.from !== known.treasury) {
    const deposit = known.deposits.get(`${t.txHash}:${t.logIndex}`);
    if (deposit === undefined || deposit.amountMicros !== t.valueMicros)
      report(`${name}: no deposit record matches it`);
    else deposit.matched = true;
    return;
  }
  const kind =
    fromWallet && t.to === known.treasury
      ? 'sweep'
      : t.from === known.treasury && !toWallet
        ? 'payout'
        : null;
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
  else {
    paid.matched = true;
    paid.movedMicros = t.valueMicros;
  }
}

/** An x402 payment the transfer settles: its recorded hash, or (used but not yet seen) its payee and amount. */
function matchX402(known: Known, t: ChainTransfer) {
  const candidates = known.x402.filter(
    (x) => !x.matched && x.to === t.to && x.state !== 'approved' && settlesFor(x, t.valueMicros),
  );
  return candidates.find((x) => x.hash === t.txHash) ?? candidates.find((x) => x.hash === null);
}

/** EIP-3009 moves exactly the amount; Permit2 at most the maximum, and exactly the settled amount once settled. */
function settlesFor(x: Known['x402'][number], valueMicros: bigint): boolean {
  if (x.authorization !== 'permit2') return x.amountMicros === valueMicros;
  if (x.settledMicros !== null) return x.settledMicros === valueMicros;
  return valueMicros <= x.amountMicros;
}

function reportUnmatched(known: Known, report: (p: string) => void): void {
  for (const [key, deposit] of known.deposits) {
    if (deposit.status === 'credited' && !deposit.matched) report(`credited deposit ${key} is not on chain`);
  }
  for (const row of known.outbox) {
    // An approval moves no USDC: there is no transfer of it to find.
    if (row.status === 'completed' && !row.matched && row.kind !== 'approve')
      report(`${row.kind} ${row.id} is completed but not on chain`);
  }
  for (const x of known.x402) {
    // Settled for nothing (a metered payment): nothing moved, nothing to find.
    const moved = !(x.settledMicros === 0n && x.hash === null);
    if (x.state === 'settled' && moved && !x.matched)
      report(`x402 payment ${x.id} is settled but not on chain`);
  }
}

async function holdings(client: ChainClient, config: EvmConfig, known: Known): Promise<bigint> {
  let total = 0n;
  for (const address of new Set([known.treasury, ...known.depositAddresses])) {
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
    if (row.kind !== 'payout' || (row.status !== 'queued' && row.status !== 'sent')) continue;
    const hashes = [...row.hashes].filter((h) => h !== '') as `0x${string}`[];
    if ((await firstReceipt(client, hashes)) === null) owed += row.amountMicros;
  }
  return owed + (await x402InFlight(client, known));
}

/**
 * x402 payments debited but not (yet) paid by the token: approved, or signed with the nonce still unused. A
 * signed Permit2 authorization counts at its maximum, less what the chain already moved for it (the rest comes
 * back to the wallet when it completes).
 */
async function x402InFlight(client: ChainClient, known: Known): Promise<bigint> {
  let owed = 0n;
  for (const x of known.x402) {
    if (x.state === 'approved') owed += x.amountMicros;
    if (x.state === 'permit_signed') owed += x.amountMicros - (x.movedMicros ?? 0n);
    if (x.state !== 'signed' || x.matched) continue;
    const used = await authorizationUsedOnChain(client, known.usdcAddress, known.treasury, x.nonce!);
    if (!used) owed += x.amountMicros;
  }
  return owed;
}
