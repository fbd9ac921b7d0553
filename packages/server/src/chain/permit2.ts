// Permit2 on the chain, as the rail sees it: the treasury's one-time approval of Permit2 over USDC (sent through
// the outbox like any treasury transaction), and what the chain shows of a Permit2 witness transfer the treasury
// signed (x402 `upto`): whether its nonce is spent, and the USDC transfer that spent it. Permit2 emits no event of
// its own for a signature transfer, so the transfer is found as the USDC Transfer from the treasury to the payee in
// the block where the nonce became spent — and, when that block holds more than one, by the nonce in the calldata.
import {
  type Address,
  BaseError,
  ContractFunctionZeroDataError,
  decodeFunctionData,
  encodeFunctionData,
  type Log,
  maxUint256,
  parseAbi,
  parseEventLogs,
} from 'viem';
import { PERMIT2_ADDRESS, UPTO_PROXY_ADDRESS } from '../domain/permit2.ts';
import type { ChainClient } from './client.ts';
import { fetchTransfers } from './deposits.ts';
import { transferEvent } from './token.ts';

const permit2Abi = parseAbi(['function nonceBitmap(address owner, uint256 wordPos) view returns (uint256)']);
/** The upto proxy's two settling entries (x402UptoPermit2Proxy): their permit carries the nonce. */
const proxyAbi = parseAbi([
  'struct TokenPermissions { address token; uint256 amount; }',
  'struct PermitTransferFrom { TokenPermissions permitted; uint256 nonce; uint256 deadline; }',
  'struct Witness { address to; address facilitator; uint256 validAfter; }',
  'struct EIP2612Permit { uint256 value; uint256 deadline; bytes32 r; bytes32 s; uint8 v; }',
  'function settle(PermitTransferFrom permit, uint256 amount, address owner, Witness witness, bytes signature)',
  'function settleWithPermit(EIP2612Permit permit2612, PermitTransferFrom permit, uint256 amount, address owner, Witness witness, bytes signature)',
]);
/** How far back the block that spent a nonce is searched. */
const LOOKBACK_BLOCKS = 10_000n;
/** Approved at least this much, Permit2 needs no new approval for a long while (the approval is for the maximum). */
export const PERMIT2_ALLOWANCE_ENOUGH = maxUint256 / 2n;

const approveAbi = parseAbi([
  'function approve(address spender, uint256 value) returns (bool)',
  'function allowance(address owner, address spender) view returns (uint256)',
]);

/** USDC's approve(Permit2, max): the treasury's one-time approval, sent as an outbox row of kind 'approve'. */
export function permit2ApproveData(): `0x${string}` {
  return encodeFunctionData({
    abi: approveAbi,
    functionName: 'approve',
    args: [PERMIT2_ADDRESS as Address, maxUint256],
  });
}

/** The treasury's USDC allowance to Permit2, at `blockNumber` or the latest block. */
export function permit2Allowance(
  client: ChainClient,
  usdcAddress: string,
  owner: string,
  blockNumber?: bigint,
): Promise<bigint> {
  return client.readContract({
    address: usdcAddress as Address,
    abi: approveAbi,
    functionName: 'allowance',
    args: [owner as Address, PERMIT2_ADDRESS as Address],
    ...(blockNumber === undefined ? {} : { blockNumber }),
  });
}

/** Whether Permit2 has spent `owner`'s unordered `nonce` (0x hex), at `blockNumber` or the latest block. */
export async function permit2NonceUsed(
  client: ChainClient,
  owner: string,
  nonce: string,
  blockNumber?: bigint,
): Promise<boolean> {
  const n = BigInt(nonce);
  try {
    const bitmap = await client.readContract({
      address: PERMIT2_ADDRESS as Address,
      abi: permit2Abi,
      functionName: 'nonceBitmap',
      args: [owner as Address, n >> 8n],
      ...(blockNumber === undefined ? {} : { blockNumber }),
    });
    return (bitmap & (1n << (n & 0xffn))) !== 0n;
  } catch (error) {
    // No Permit2 at that block (a chain where it came later): nothing of it can have been spent there.
    const noCode =
      blockNumber !== undefined &&
      error instanceof BaseError &&
      error.walk((e) => e instanceof ContractFunctionZeroDataError) !== null;
    if (noCode) return false;
    throw error;
  }
}

export interface Permit2Use {
  txHash: string;
  blockNumber: bigint;
  /** What moved to the payee (at most the permitted amount: Permit2 and the proxy refuse more). */
  amountMicros: bigint;
}

export interface Permit2Payment {
  usdcAddress: string;
  owner: string;
  payTo: string;
  nonce: string;
}

/** The transfer that spent the permit, if its nonce is spent: the seller's hint first, else the chain's history. */
export async function findPermit2Use(
  client: ChainClient,
  payment: Permit2Payment,
  hint: string | null,
): Promise<Permit2Use | null> {
  if (!(await permit2NonceUsed(client, payment.owner, payment.nonce))) return null;
  if (hint !== null) {
    const receipt = await client.getTransactionReceipt({ hash: hint as `0x${string}` }).catch(() => null);
    if (receipt?.status === 'success' && (await spentIn(client, payment, receipt.blockNumber))) {
      const use = await useInBlock(client, payment, receipt.blockNumber, receipt.logs);
      if (use !== null) return use;
    }
  }
  const block = await blockThatSpent(client, payment);
  return block === null ? null : useInBlock(client, payment, block, null);
}

/** The nonce is spent as of `block` and was not before it. */
async function spentIn(client: ChainClient, payment: Permit2Payment, block: bigint): Promise<boolean> {
  if (!(await permit2NonceUsed(client, payment.owner, payment.nonce, block))) return false;
  return block === 0n || !(await permit2NonceUsed(client, payment.owner, payment.nonce, block - 1n));
}

/** The first block in which the nonce is spent (a binary search over recent state), or null past the lookback. */
async function blockThatSpent(client: ChainClient, payment: Permit2Payment): Promise<bigint | null> {
  const head = await client.getBlockNumber({ cacheTime: 0 });
  let low = head > LOOKBACK_BLOCKS ? head - LOOKBACK_BLOCKS : 0n;
  let high = head;
  if (await permit2NonceUsed(client, payment.owner, payment.nonce, low)) return low === 0n ? 0n : null;
  // Invariant: unspent at `low`, spent at `high`.
  while (high - low > 1n) {
    const middle = (low + high) / 2n;
    if (await permit2NonceUsed(client, payment.owner, payment.nonce, middle)) high = middle;
    else low = middle;
  }
  return high;
}

/** The treasury-to-payee USDC transfer of `block` that spent the nonce. */
async function useInBlock(
  client: ChainClient,
  payment: Permit2Payment,
  block: bigint,
  receiptLogs: Log[] | null,
): Promise<Permit2Use | null> {
  const owner = payment.owner.toLowerCase();
  const payTo = payment.payTo.toLowerCase();
  const transfers =
    receiptLogs === null
      ? await fetchTransfers(client, payment.usdcAddress, block, block, {
          from: owner as Address,
          to: payTo as Address,
        })
      : parseEventLogs({ abi: [transferEvent], logs: receiptLogs })
          .filter((log) => log.address.toLowerCase() === payment.usdcAddress.toLowerCase())
          .map((log) => ({
            txHash: (log.transactionHash ?? '').toLowerCase(),
            blockNumber: block,
            from: log.args.from.toLowerCase(),
            to: log.args.to.toLowerCase(),
            valueMicros: log.args.value,
          }));
  const ours = transfers.filter((t) => t.from === owner && t.to === payTo);
  const mine = ours.length <= 1 ? ours : await byNonce(client, ours, payment.nonce);
  const use = mine.length === 1 ? mine[0] : undefined;
  if (use === undefined) return null;
  return { txHash: use.txHash, blockNumber: use.blockNumber, amountMicros: use.valueMicros };
}

/** Of several transfers to one payee in a block, those whose transaction settles the permit with this nonce. */
async function byNonce<T extends { txHash: string }>(
  client: ChainClient,
  transfers: T[],
  nonce: string,
): Promise<T[]> {
  const mine: T[] = [];
  for (const transfer of transfers) {
    const tx = await client.getTransaction({ hash: transfer.txHash as `0x${string}` });
    if (tx.to?.toLowerCase() !== UPTO_PROXY_ADDRESS.toLowerCase()) continue;
    try {
      const call = decodeFunctionData({ abi: proxyAbi, data: tx.input });
      const permit = call.functionName === 'settle' ? call.args[0] : call.args[1];
      if (permit.nonce === BigInt(nonce)) mine.push(transfer);
    } catch {}
  }
  return mine;
}
