// A load generator for fault tests: workers send payments with idempotency keys of their own and record
// every answer. A key is acknowledged once any attempt answered 200; an unacknowledged key is retried with the
// same key (and the same params), so at the end every key must have paid exactly once, never twice.
import { setTimeout as sleep } from 'node:timers/promises';
import { OUTSIDE_ADDRESS } from './agent.helpers.ts';

export interface Answer {
  status: number | 'network';
  elapsedMs: number;
  atMs: number;
  code?: string;
}

export interface PaymentLoad {
  answers: Answer[];
  /** idempotency key → the txId of its acknowledged payment */
  acknowledged: Map<string, string>;
  keys: string[];
  stop(): Promise<void>;
  /** Retries every key not yet acknowledged until each is (or the deadline passes). */
  settle(deadlineMs: number): Promise<void>;
}

const AMOUNT = '0.01';
const REQUEST_TIMEOUT_MS = 30_000;

export function sendPayment(
  base: string,
  apiKey: string,
  idempotencyKey: string,
): Promise<Answer & { txId?: string }> {
  return callTool(base, apiKey, 'send_payment', {
    toAddress: OUTSIDE_ADDRESS,
    amount: AMOUNT,
    idempotencyKey,
  });
}

/** One tool call, its answer recorded: status (or a network failure), how long it took, its error code. */
async function callTool(
  base: string,
  apiKey: string,
  tool: string,
  params: Record<string, unknown>,
): Promise<Answer & { txId?: string }> {
  const startedMs = Date.now();
  try {
    const response = await fetch(`${base}/mcp/v1/tools/${tool}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ params }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const body = (await response.json()) as { data?: { txId?: string }; error?: { code?: string } };
    return {
      status: response.status,
      elapsedMs: Date.now() - startedMs,
      atMs: startedMs,
      ...(body.error?.code === undefined ? {} : { code: body.error.code }),
      ...(body.data?.txId === undefined ? {} : { txId: body.data.txId }),
    };
  } catch {
    return { status: 'network', elapsedMs: Date.now() - startedMs, atMs: startedMs };
  }
}

export function startPaymentLoad(
  base: string,
  apiKey: string,
  options: { workers: number; label: string },
): PaymentLoad {
  const answers: Answer[] = [];
  const acknowledged = new Map<string, string>();
  const keys: string[] = [];
  let sequence = 0;
  const attempt = async (key: string) => {
    const answer = await sendPayment(base, apiKey, key);
    answers.push(answer);
    if (answer.status === 200 && answer.txId !== undefined) acknowledged.set(key, answer.txId);
  };
  const stop = looping(options.workers, async () => {
    const key = `${options.label}-${sequence++}`;
    keys.push(key);
    await attempt(key);
    if (!acknowledged.has(key)) await sleep(50);
  });
  return {
    answers,
    acknowledged,
    keys,
    stop,
    async settle(deadlineMs) {
      for (const key of keys) {
        while (!acknowledged.has(key) && Date.now() < deadlineMs) {
          await attempt(key);
          if (!acknowledged.has(key)) await sleep(200);
        }
      }
    },
  };
}

/**
 * Agents polling check_balance beside the payments: on PostgreSQL concurrent reads share one query
 * (services/wallets/read-batch.ts), so an outage must bound them as it bounds payments. Records every answer.
 */
export function startBalanceReads(base: string, apiKey: string, options: { workers: number }) {
  const answers: Answer[] = [];
  const stop = looping(options.workers, async () => {
    answers.push(await callTool(base, apiKey, 'check_balance', {}));
    await sleep(10);
  });
  return { answers, stop };
}

/** `count` loops, each running `step` again until stopped; the stop resolves once every loop has ended. */
function looping(count: number, step: () => Promise<void>): () => Promise<void> {
  let running = true;
  const loops = Array.from({ length: count }, async () => {
    while (running) await step();
  });
  return async () => {
    running = false;
    await Promise.all(loops);
  };
}
