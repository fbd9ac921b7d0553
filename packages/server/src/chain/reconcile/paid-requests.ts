// The part of verify-ledger --chain that paid requests play (x402, MPP): a payment debited from a wallet is paid
// by the treasury's authorization when the seller uses it. How its transfer matches and what it owes while in
// flight depend on the authorization its payment method signs (payments/method.ts: EIP-3009 or Permit2), each
// with its rule below: a method signing a new kind of authorization does not compile until the kind has one.
import type { Kysely } from 'kysely';
import type { AuthorizationKind, Database } from '../../store/schema.ts';
import type { ChainClient } from '../client.ts';
import type { ChainTransfer } from '../deposits.ts';
import { authorizationUsedOnChain } from '../token.ts';
import type { ChainPart, Scope } from './part.ts';

interface PaidRequest {
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
}

interface AuthorizationRule {
  /** Whether a transfer of this value can be the payment's settlement. */
  settles(paid: PaidRequest, valueMicros: bigint): boolean;
  /** What a signed payment still owes out of the treasury (its authorization not yet used, or not in full). */
  signedOwedMicros(paid: PaidRequest, client: ChainClient, scope: Scope): Promise<bigint>;
}

const RULES: Record<AuthorizationKind, AuthorizationRule> = {
  // EIP-3009 moves exactly the amount, once the token saw the nonce used.
  eip3009: {
    settles: (paid, valueMicros) => paid.amountMicros === valueMicros,
    async signedOwedMicros(paid, client, scope) {
      if (paid.state !== 'signed' || paid.matched) return 0n;
      const used = await authorizationUsedOnChain(client, scope.usdcAddress, scope.treasury, paid.nonce!);
      return used ? 0n : paid.amountMicros;
    },
  },
  // Permit2 (x402 `upto`) moves at most the maximum, exactly the settled amount once settled; in flight it owes
  // the maximum less what the chain already moved (the rest comes back to the wallet when it completes).
  permit2: {
    settles: (paid, valueMicros) =>
      paid.settledMicros !== null ? paid.settledMicros === valueMicros : valueMicros <= paid.amountMicros,
    signedOwedMicros: async (paid) =>
      paid.state === 'permit_signed' ? paid.amountMicros - (paid.movedMicros ?? 0n) : 0n,
  },
};

export async function paidRequestsPart(db: Kysely<Database>, scope: Scope): Promise<ChainPart> {
  const rows = await db
    .selectFrom('x402_payments')
    .selectAll()
    .where('state', 'in', ['approved', 'signed', 'permit_signed', 'settled'])
    .execute();
  const paid: PaidRequest[] = rows.map((x) => ({
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
  }));
  return {
    claim(t) {
      if (t.from !== scope.treasury || scope.wallets.has(t.to)) return false;
      const settled = settledBy(paid, t);
      if (settled === undefined) return false;
      settled.matched = true;
      settled.movedMicros = t.valueMicros;
      return true;
    },
    reportUnmatched(report) {
      for (const x of paid) {
        // Settled for nothing (a metered payment): nothing moved, nothing to find.
        const moved = !(x.settledMicros === 0n && x.hash === null);
        if (x.state === 'settled' && moved && !x.matched)
          report(`x402 payment ${x.id} is settled but not on chain`);
      }
    },
    async owedMicros(client) {
      let owed = 0n;
      for (const x of paid) {
        if (x.state === 'approved') owed += x.amountMicros;
        else owed += await RULES[x.authorization].signedOwedMicros(x, client, scope);
      }
      return owed;
    },
    holdingAddresses: () => [],
  };
}

/** The payment a transfer settles: its recorded hash, or (used but not yet seen) its payee and amount. */
function settledBy(paid: PaidRequest[], t: ChainTransfer): PaidRequest | undefined {
  const candidates = paid.filter(
    (x) =>
      !x.matched &&
      x.to === t.to &&
      x.state !== 'approved' &&
      RULES[x.authorization].settles(x, t.valueMicros),
  );
  return candidates.find((x) => x.hash === t.txHash) ?? candidates.find((x) => x.hash === null);
}
