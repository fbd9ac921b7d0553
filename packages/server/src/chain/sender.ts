// The treasury's sender: turns outbox rows into chain transactions, one instance at a time (lease.ts).
//
// A round: (1) every `sent` row is checked on chain — CONFIRMATIONS deep finishes it (completed, or failed with
// the money back when it reverted); still unmined, it is re-broadcast as signed, or after PAYOUT_FEE_BUMP_AFTER_MS
// re-signed with the same nonce and higher fees (only one of them can ever be mined); (2) `queued` rows get
// the next nonces, are signed, stored, then broadcast. Storing before broadcasting is what makes a crash safe:
// after a restart the stored transaction is found on chain or sent again — never a second, different one.
import {
  BaseError,
  ExecutionRevertedError,
  encodeFunctionData,
  keccak256,
  type Log,
  parseAbiItem,
  parseEventLogs,
  parseTransaction,
} from 'viem';
import type { RailContext } from './books.ts';
import type { ChainClient } from './client.ts';
import type { EvmConfig } from './config.ts';
import type { ServiceKeys } from './keys.ts';
import { holdLease } from './lease.ts';
import { finishOutboxRow, type OutboxRow, recordSigned } from './outbox-finish.ts';
import { permit2ApproveData } from './permit2.ts';
import { usdcAbi } from './token.ts';

/** Rows looked at per round: bounds a round's time and the RPC calls it makes. */
const SENT_PER_ROUND_MAX = 64;
const QUEUED_PER_ROUND_MAX = 32;
/** Gas limit over the estimate: an estimate is exact only for the state it was made against. */
const GAS_HEADROOM_PERCENT = 120n;
/** Fee bump per re-signing; nodes require at least +10% to replace a transaction. */
const FEE_BUMP_PERCENT = 125n;
/**
 * Fault injection for the crash tests (test/evm-crash.test.ts), never set in production: the process kills itself
 * at that point of a payout, exactly as a power cut would.
 */
const CRASH_POINT = process.env.AGENT_WALLET_TEST_CRASH;
/** `payout-after-sign`, `refill-after-broadcast`…: the row's kind, then the step. */
function crashIf(step: 'after-sign' | 'after-broadcast', row: OutboxRow): void {
  if (CRASH_POINT === `${row.kind}-${step}`) process.kill(process.pid, 'SIGKILL');
}

/** A payout that cannot be sent for this long (treasury short of USDC) fails and its money goes back. */
export const QUEUED_MAX_AGE_MS = 15 * 60_000;

export interface SenderDeps {
  ctx: RailContext;
  client: ChainClient;
  config: EvmConfig;
  keys: ServiceKeys;
  /** This process's lease holder id. */
  holder: string;
  warn: (message: string) => void;
}

export interface SendRound {
  leased: boolean;
  sent: number;
  finished: number;
}

export const senderLeaseName = (config: EvmConfig) => `sender:${config.chainId}`;

export async function sendOnce(deps: SenderDeps): Promise<SendRound> {
  const { ctx } = deps;
  const leased = await holdLease(ctx.store.db, {
    name: senderLeaseName(deps.config),
    holder: deps.holder,
    nowMs: ctx.clock.nowMs(),
    ttlMs: deps.config.senderLeaseMs,
  });
  if (!leased) return { leased, sent: 0, finished: 0 };
  const head = await deps.client.getBlockNumber({ cacheTime: 0 });
  const sentRows = await rowsIn(deps, 'sent', SENT_PER_ROUND_MAX);
  let finished = 0;
  for (const row of sentRows) if (await progressSent(deps, row, head)) finished += 1;
  const queued = await rowsIn(deps, 'queued', QUEUED_PER_ROUND_MAX);
  const sent = queued.length === 0 ? 0 : await sendQueued(deps, queued);
  return { leased, sent, finished };
}

function rowsIn(deps: SenderDeps, status: 'sent' | 'queued', limit: number): Promise<OutboxRow[]> {
  return deps.ctx.store.db
    .selectFrom('chain_outbox')
    .selectAll()
    .where('status', '=', status)
    .orderBy(status === 'sent' ? 'nonce' : 'created_at_ms', 'asc')
    .limit(limit)
    .execute();
}

/** A sent row: finished when deep enough, else re-broadcast, or re-signed with higher fees when stuck. */
async function progressSent(deps: SenderDeps, row: OutboxRow, head: bigint): Promise<boolean> {
  const hashes = JSON.parse(row.tx_hashes_json) as `0x${string}`[];
  const receipt = await firstReceipt(deps.client, hashes);
  if (receipt !== null) {
    if (head - receipt.blockNumber + 1n < BigInt(deps.config.confirmations)) return false;
    const failure =
      receipt.status !== 'success'
        ? 'the transfer reverted on chain'
        : row.kind === 'owners_op' && !operationsSucceeded(receipt.logs)
          ? "the owners' operation was submitted but its call reverted in the account"
          : null;
    const mined = { txHash: receipt.transactionHash, blockNumber: receipt.blockNumber };
    const ending =
      failure === null
        ? { kind: 'completed' as const, ...mined }
        : { kind: 'failed' as const, reason: failure, ...mined };
    return finishOutboxRow(deps.ctx, row, ending);
  }
  const stuckMs = deps.ctx.clock.nowMs() - Number(row.sent_at_ms ?? 0n);
  if (stuckMs >= deps.config.feeBumpAfterMs) await bumpFees(deps, row, hashes);
  else await broadcast(deps, row.raw_tx as `0x${string}`);
  return false;
}

const userOperationEvent = parseAbiItem(
  'event UserOperationEvent(bytes32 indexed userOpHash, address indexed sender, address indexed paymaster, uint256 nonce, bool success, uint256 actualGasCost, uint256 actualGasUsed)',
);

/** handleOps succeeds even when the account's call reverts: the EntryPoint's event says which. */
function operationsSucceeded(logs: Log[]): boolean {
  const events = parseEventLogs({ abi: [userOperationEvent], eventName: 'UserOperationEvent', logs });
  return events.length > 0 && events.every((e) => e.args.success);
}

/** The receipt of whichever of these hashes is in a block, or null (only one of a nonce's signings can be). */
export async function firstReceipt(client: ChainClient, hashes: readonly `0x${string}`[]) {
  for (const hash of hashes) {
    try {
      return await client.getTransactionReceipt({ hash });
    } catch (error) {
      if (!(error instanceof BaseError && error.name === 'TransactionReceiptNotFoundError')) throw error;
    }
  }
  return null;
}

/** Sends a signed transaction; a node that already has it (or has mined its nonce) is not an error here. */
async function broadcast(deps: SenderDeps, rawTx: `0x${string}`): Promise<void> {
  try {
    await deps.client.sendRawTransaction({ serializedTransaction: rawTx });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/already known|nonce too low|already imported|replacement transaction underpriced/i.test(message))
      return;
    deps.warn(`broadcast failed, will retry: ${message.split('\n')[0]}`);
  }
}

async function bumpFees(deps: SenderDeps, row: OutboxRow, hashes: `0x${string}`[]): Promise<void> {
  const current = await deps.client.estimateFeesPerGas();
  const bump = (stored: string | null, now: bigint) => {
    const raised = (BigInt(stored ?? '0') * FEE_BUMP_PERCENT) / 100n;
    return raised > now ? raised : now;
  };
  const maxPriorityFeePerGas = bump(row.max_priority_fee_per_gas, current.maxPriorityFeePerGas);
  const maxFeePerGas = bump(row.max_fee_per_gas, current.maxFeePerGas);
  const call = callOf(deps, row);
  // The original's gas limit: an estimate now would run on top of the pending original (its storage writes
  // already done), come out too low, and the replacement would run out of gas.
  const gas = parseTransaction(row.raw_tx as `0x${string}`).gas;
  if (gas === undefined) throw new Error(`outbox row ${row.id} holds a transaction without a gas limit`);
  const rawTx = await signCall(deps, call, { nonce: row.nonce!, gas, maxFeePerGas, maxPriorityFeePerGas });
  const signed = {
    nonce: row.nonce!,
    rawTx,
    hashes: [...hashes, keccak256(rawTx)],
    maxFeePerGas,
    maxPriorityFeePerGas,
  };
  await storeSigned(deps, row, signed);
  await broadcast(deps, rawTx);
}

/** The treasury's EIP-1559 signature of a call: the one place a transaction of the service is signed. */
function signCall(
  deps: Pick<SenderDeps, 'keys' | 'config'>,
  call: { to: `0x${string}`; data: `0x${string}` },
  tx: { nonce: bigint; gas: bigint; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
): Promise<`0x${string}`> {
  return deps.keys.treasury.signTransaction({
    chainId: deps.config.chainId,
    type: 'eip1559',
    ...call,
    nonce: Number(tx.nonce),
    gas: tx.gas,
    maxFeePerGas: tx.maxFeePerGas,
    maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
  });
}

/**
 * The contract call an outbox row makes: a USDC transfer (payout; float_return, to the owners' account),
 * transferWithAuthorization (sweep), or the approval of Permit2 (approve), or the delegation's redemption (refill:
 * the owners' account pays the float, within the period's allowance).
 */
export function callOf(deps: Pick<SenderDeps, 'config'>, row: OutboxRow) {
  const to = deps.config.usdcAddress as `0x${string}`;
  if (row.kind === 'approve') return { to, data: permit2ApproveData() };
  // Encoded when queued: a refill's DelegationManager.redeemDelegations (chain/bounded/bounded.ts), an owners'
  // operation's EntryPoint.handleOps (chain/bounded/owners-requests.ts).
  if (row.kind === 'refill' || row.kind === 'owners_op')
    return JSON.parse(row.authorization_json!) as { to: `0x${string}`; data: `0x${string}` };
  // A float return is a USDC transfer of the service's key too: to the owners' account.
  if (row.kind === 'payout' || row.kind === 'float_return') {
    const data = encodeFunctionData({
      abi: usdcAbi,
      functionName: 'transfer',
      args: [row.to_address as `0x${string}`, row.amount_micros],
    });
    return { to, data };
  }
  const auth = JSON.parse(row.authorization_json!) as SweepAuthorization;
  const data = encodeFunctionData({
    abi: usdcAbi,
    functionName: 'transferWithAuthorization',
    args: [
      auth.from,
      auth.to,
      BigInt(auth.value),
      BigInt(auth.validAfter),
      BigInt(auth.validBefore),
      auth.nonce,
      auth.v,
      auth.r,
      auth.s,
    ],
  });
  return { to, data };
}

export interface SweepAuthorization {
  from: `0x${string}`;
  to: `0x${string}`;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: `0x${string}`;
  v: number;
  r: `0x${string}`;
  s: `0x${string}`;
}

/** Stores a signing under the lease: a holder that lost its lease stores nothing and sends nothing. */
async function storeSigned(deps: SenderDeps, row: OutboxRow, signed: Parameters<typeof recordSigned>[2]) {
  const { ctx } = deps;
  await ctx.writer.run(async (trx) => {
    const stillHeld = await holdLease(trx, {
      name: senderLeaseName(deps.config),
      holder: deps.holder,
      nowMs: ctx.clock.nowMs(),
      ttlMs: deps.config.senderLeaseMs,
    });
    if (!stillHeld) throw new Error('the sender lease was lost; another instance sends now');
    await recordSigned(trx, row, signed, ctx.clock.nowMs());
  });
}

/** Queued rows take the next nonces in order; a row the chain would revert fails at once, before any gas. */
async function sendQueued(deps: SenderDeps, queued: readonly OutboxRow[]): Promise<number> {
  const { client, keys } = deps;
  let nonce = await nextNonce(deps);
  const fees = await client.estimateFeesPerGas();
  let treasuryMicros = await client.readContract({
    address: deps.config.usdcAddress as `0x${string}`,
    abi: usdcAbi,
    functionName: 'balanceOf',
    args: [keys.treasury.address],
  });
  let sent = 0;
  for (const row of queued) {
    if (row.kind === 'payout' && row.amount_micros > treasuryMicros) {
      await waitOrGiveUp(deps, row);
      continue;
    }
    const call = callOf(deps, row);
    const gas = await estimateOrFail(deps, row, call);
    if (gas === null) continue;
    const rawTx = await signCall(deps, call, { nonce, gas: (gas * GAS_HEADROOM_PERCENT) / 100n, ...fees });
    await storeSigned(deps, row, { nonce, rawTx, hashes: [keccak256(rawTx)], ...fees });
    crashIf('after-sign', row);
    await broadcast(deps, rawTx);
    crashIf('after-broadcast', row);
    if (row.kind === 'payout' || row.kind === 'float_return') treasuryMicros -= row.amount_micros;
    nonce += 1n;
    sent += 1;
  }
  return sent;
}

/**
 * The next nonce: past every nonce the outbox ever stored (a signed transaction may not have reached the node
 * yet) and past what the chain has seen from the treasury (pending included).
 */
async function nextNonce(deps: SenderDeps): Promise<bigint> {
  const stored = await deps.ctx.store.db
    .selectFrom('chain_outbox')
    .select((eb) => eb.fn.max('nonce').as('n'))
    .executeTakeFirst();
  const chain = await deps.client.getTransactionCount({
    address: deps.keys.treasury.address,
    blockTag: 'pending',
  });
  const afterStored = stored?.n === null || stored?.n === undefined ? 0n : BigInt(stored.n) + 1n;
  return afterStored > BigInt(chain) ? afterStored : BigInt(chain);
}

/** The gas a call needs, or null when the chain says it would revert: then the row fails before anything is sent. */
async function estimateOrFail(
  deps: SenderDeps,
  row: OutboxRow,
  call: { to: `0x${string}`; data: `0x${string}` },
): Promise<bigint | null> {
  try {
    return await deps.client.estimateGas({ account: deps.keys.treasury.address, ...call });
  } catch (error) {
    const reverted =
      error instanceof BaseError && error.walk((e) => e instanceof ExecutionRevertedError) !== null;
    if (!reverted) throw error;
    const reason = `the chain refused the transfer (${error.shortMessage.split('\n')[0]})`;
    await finishOutboxRow(deps.ctx, row, { kind: 'failed', reason, txHash: null, blockNumber: null });
    return null;
  }
}

/** A payout the treasury cannot cover yet waits for sweeps; past QUEUED_MAX_AGE_MS it fails, money returned. */
async function waitOrGiveUp(deps: SenderDeps, row: OutboxRow): Promise<void> {
  const ageMs = deps.ctx.clock.nowMs() - Number(row.created_at_ms);
  if (ageMs < QUEUED_MAX_AGE_MS) {
    deps.warn(`payout ${row.id} waits: the treasury holds less USDC than it sends`);
    return;
  }
  await finishOutboxRow(deps.ctx, row, {
    kind: 'failed',
    reason: 'the treasury could not cover the payout in time',
    txHash: null,
    blockNumber: null,
  });
}
