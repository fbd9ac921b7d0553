// Uniswap's Permit2 and x402's `upto` proxy, at the addresses @x402/evm hard-codes (each the same on every chain):
// the payment method signs for them (payments/x402-upto), the rail approves and reads them (chain/permit2.ts).

/** Permit2 (canonical CREATE2 deployment). */
export const PERMIT2_ADDRESS = '0x000000000022D473030F116dDEE9F6B43aC78BA3';
/** x402's upto proxy: the only spender an upto permit names. */
export const UPTO_PROXY_ADDRESS = '0x4020A4f3b7b90ccA423B9fabCc0CE57C6C240002';
