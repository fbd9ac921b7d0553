// The one JSON-RPC client of the rail. Every call is bounded in time: a slow or dead node makes a round of the
// watcher or the sender fail (and try again next round), never hang.
import { createPublicClient, http, type PublicClient } from 'viem';
import type { EvmConfig } from './config.ts';

const RPC_TIMEOUT_MS = 10_000;
const RPC_RETRIES = 1;

export type ChainClient = PublicClient;

export function createChainClient(config: Pick<EvmConfig, 'rpcUrl' | 'chainId'>): ChainClient {
  return createPublicClient({
    transport: http(config.rpcUrl, { timeout: RPC_TIMEOUT_MS, retryCount: RPC_RETRIES }),
    // Anvil mines at once; a real chain is polled by the rail's own loops, not by viem.
    pollingInterval: 1_000,
  });
}
