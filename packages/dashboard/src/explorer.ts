// Transaction hashes for display: shortened, and linked to the block explorer the operator configured (evm rail).
// The link is built only from the explorer's http(s) base and a well-formed hash: nothing else goes into it.

const TX_HASH = /^0x[0-9a-fA-F]{64}$/;

/** `<explorerUrl>/tx/<txHash>`, or null without an explorer, with a non-http(s) one, or for a malformed hash. */
export function explorerTxUrl(explorerUrl: string | null | undefined, txHash: string): string | null {
  if (explorerUrl === null || explorerUrl === undefined || !TX_HASH.test(txHash)) return null;
  if (!/^https?:\/\//i.test(explorerUrl)) return null;
  let base: URL;
  try {
    base = new URL(explorerUrl);
  } catch {
    return null;
  }
  if (base.protocol !== 'https:' && base.protocol !== 'http:') return null;
  // A base with credentials, a query or a fragment is not a plain explorer address.
  if (base.username !== '' || base.password !== '' || base.search !== '' || base.hash !== '') return null;
  return `${base.origin}${base.pathname.replace(/\/+$/, '')}/tx/${txHash}`;
}

/** "0x1234…abcd" for tight spaces; the full hash stays available (title, link). */
export function shortHash(hash: string): string {
  return hash.length <= 14 ? hash : `${hash.slice(0, 6)}…${hash.slice(-4)}`;
}
