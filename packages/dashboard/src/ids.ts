// Idempotency keys for fund/withdraw: random, from crypto.getRandomValues (works outside secure contexts too).
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `dash-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
