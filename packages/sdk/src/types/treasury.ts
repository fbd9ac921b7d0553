// The bounded treasury's wire types (`evm` rail: GET /wallet/treasury, what waits for the owners' signatures, a
// signature handed in, the revocation of the service's allowance, a change of the owners): aliases of the types
// generated from the server's OpenAPI document (src/wire.generated.ts, which holds the evm rail's operations too),
// so a route that changes its schema changes these with `npm run generate`, and test/wire.test.ts fails until then.
import type { operations } from '../wire.generated.ts';
import type { MasterWithdrawal } from './wallets.ts';

type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;
/** The `data` of an operation's answer with this status. */
type DataOf<Op extends keyof operations, Status extends number> =
  operations[Op]['responses'] extends Record<Status, infer R>
    ? Json<R> extends { data: infer D }
      ? D
      : never
    : never;

/**
 * `GET /wallet/treasury` (`evm` rail): where the money rests and what a breach of the server could move. In `hot`
 * mode the service's own key (`account`) holds all of it: `owners` is empty, `threshold` and `allowance` are null
 * and `atRisk` equals `float`. In `bounded` mode a smart account the owners hold keeps the money and the service
 * may move only its allowance: `atRisk` is `float` + the remaining allowance.
 */
export type TreasuryView = DataOf<'walletTreasury', 200>;
/** Who holds the treasury: `hot` (the service's key) or `bounded` (a smart account its owners hold). */
export type TreasuryMode = TreasuryView['mode'];
/** What the chain lets the service move per period, in `bounded` mode. */
export type TreasuryAllowance = NonNullable<TreasuryView['allowance']>;

/** `GET /wallet/treasury/signatures` (`bounded` mode): the owners' requests, newest first. */
export type OwnersRequestPage = DataOf<'listTreasurySignatures', 200>;
/** One request of the owners' account: a withdrawal it pays, a revocation, or a change of the owners. */
export type OwnersRequest = OwnersRequestPage['items'][number];
export type OwnersRequestStatus = OwnersRequest['status'];

/** `treasuryRequests` options: read by key, newest first. */
export interface TreasuryRequestsOptions {
  /** Only the requests in this status (`awaiting_signatures` for what still waits). */
  status?: OwnersRequestStatus;
  /** Page size, 1 to 100 (default 20). */
  limit?: number;
  /** A page's `nextCursor`: the page after it. */
  cursor?: string;
}

/**
 * What the owners sign (`bounded` mode): the EIP-712 data of a user operation of their account, for
 * `eth_signTypedData_v4` (its numbers as decimal strings), and its hash.
 */
export type SignRequest = OwnersRequest['signRequest'];

/**
 * A master withdrawal waiting for the owners' signatures (`bounded` mode): more than the service's float and
 * allowance can pay, answered 202.
 */
export type AwaitingSignatures = DataOf<'withdrawMaster', 202>;

/**
 * `withdrawMaster` data: the withdrawal (201), or — `bounded` treasury, more than the float and the allowance can
 * pay — the owners' request to sign (202). Narrow on `status === 'awaiting_signatures'`.
 */
export type MasterWithdrawalAnswer = MasterWithdrawal | AwaitingSignatures;

/** `treasurySignature` data: where the request stands after this signature. */
export type TreasurySignatureResult = DataOf<'treasurySignatures', 200>;

/** `revokeTreasuryAllowance` data: the waiting revocation (`submitted` once signed at the threshold). */
export type TreasuryRevocation = DataOf<'treasuryRevoke', 202>;

/**
 * `changeTreasuryOwners` data: the waiting change of the owners' account's owners and threshold, signed by the
 * owners it has now at its threshold now (`submitted` once they have).
 */
export type TreasuryOwnersChange = DataOf<'treasuryOwners', 202>;
