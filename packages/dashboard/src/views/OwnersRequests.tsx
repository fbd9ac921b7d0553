// A bounded treasury's requests on the overview's Treasury card: what waits for the owners' signatures (a
// withdrawal the allowance could not cover, a revocation of the service's allowance) and what they signed lately.
// An owner signs with their browser wallet, or with their passkey for a hybrid account (OwnersSignButtons.tsx).
// Members whose role may not sign see the list without the buttons.
import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError, toApiError } from '../api/errors.ts';
import type { OwnersRequest } from '../api/treasury.ts';
import { useApp, useCan } from '../app-context.ts';
import { LoadError, Loading, StatusNote } from '../components/Common.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { StatusTag } from '../components/StatusTag.tsx';
import { formatDateTime } from '../format.ts';
import { K, pollDelay, STALE, useResource } from '../queries.ts';
import { SignButton } from './OwnersSignButtons.tsx';
import {
  expiresWords,
  ownersRequestWords,
  revokeRefusalWords,
  signatureProgressWords,
  signerWords,
  signsWithPasskey,
} from './treasuryWords.ts';

/** While a request waits or is on its way, the list is asked again this often (ms): owners sign elsewhere too. */
export const OWNERS_REQUESTS_POLL_MS = 5_000;
/** Finished requests shown below the waiting ones. */
const RECENT_LIMIT = 10;

/**
 * What still waits (all of it, up to 100), then the most recent finished ones. A request that ended since the last
 * reading moved money: the views showing it (the master wallet, its withdrawals, the treasury) are read again.
 */
async function loadRequests(client: ReturnType<typeof useApp>['client'], qc: QueryClient) {
  const [waiting, recent] = await Promise.all([
    client.treasury.requests({ status: 'awaiting_signatures', limit: 100 }),
    client.treasury.requests({ limit: RECENT_LIMIT }),
  ]);
  const finished = recent.items.filter((r) => r.status !== 'awaiting_signatures');
  const before = qc.getQueryData<OwnersRequest[]>(K.ownersRequests) ?? [];
  const ended = finished.some((r) => before.some((b) => b.id === r.id && b.status !== r.status));
  if (ended)
    for (const queryKey of [K.master, K.withdrawalsAll, K.treasury]) void qc.invalidateQueries({ queryKey });
  return [...waiting.items, ...finished];
}

const inFlight = (items: OwnersRequest[] | undefined) =>
  items?.some((r) => r.status === 'awaiting_signatures' || r.status === 'submitted') ?? false;

/**
 * The list and its buttons. `walletOwners`: whether the account has owners' addresses (a browser wallet signs for
 * them); a hybrid account held by passkeys alone has none, and its rows offer the passkey only.
 */
export function OwnersRequests({
  threshold,
  walletOwners,
}: {
  threshold: number | null;
  walletOwners: boolean;
}) {
  const { client } = useApp();
  const qc = useQueryClient();
  const list = useResource(K.ownersRequests, () => loadRequests(client, qc), STALE.ownersRequests, {
    refetchInterval: () =>
      inFlight(qc.getQueryData<OwnersRequest[]>(K.ownersRequests))
        ? pollDelay(client.budget('wallet'), Date.now(), OWNERS_REQUESTS_POLL_MS)
        : false,
  });
  const items = list.data;
  return (
    <div className="owners-requests" data-testid="owners-requests">
      <h3>The owners’ signatures</h3>
      {items === undefined ? (
        list.error !== undefined ? (
          <LoadError error={list.error} onRetry={list.reload} />
        ) : (
          <Loading />
        )
      ) : items.length === 0 ? (
        <p className="empty" data-testid="owners-requests-empty">
          Nothing waits for the owners’ signatures.
        </p>
      ) : (
        <ul className="rows" aria-label="Requests of the owners’ account">
          {items.map((request) => (
            <RequestRow key={request.id} request={request} walletOwners={walletOwners} />
          ))}
        </ul>
      )}
      {useCan()('revokeAllowance') && <RevokeAllowance threshold={threshold} />}
    </div>
  );
}

function RequestRow({ request, walletOwners }: { request: OwnersRequest; walletOwners: boolean }) {
  // Not only while it waits: a sign button that just moved the request on still says what came of it.
  const maySign = useCan()('signTreasury');
  const waiting = request.status === 'awaiting_signatures';
  const passkey = signsWithPasskey(request);
  const expires = waiting ? expiresWords(request.expiresAt, formatDateTime) : null;
  return (
    <li
      className="row owners-request"
      data-testid="owners-request"
      data-id={request.id}
      data-status={request.status}
    >
      <span className="wallet-name">{ownersRequestWords(request)}</span>
      <StatusTag status={request.status} />
      <span className="row-meta" data-testid="owners-request-progress">
        {signatureProgressWords(request)}
      </span>
      {request.signedBy.length > 0 && (
        <span className="row-meta" data-testid="owners-request-signed-by">
          Signed by{' '}
          {request.signedBy.map((owner) => (
            <code key={owner} className="hash" title={owner}>
              {signerWords(owner)}{' '}
            </code>
          ))}
        </span>
      )}
      {expires !== null && <span className="row-meta">{expires}</span>}
      {maySign && passkey && <SignButton request={request} method="passkey" />}
      {maySign && (!passkey || walletOwners) && <SignButton request={request} method="wallet" />}
    </li>
  );
}

function RevokeAllowance({ threshold }: { threshold: number | null }) {
  const { client } = useApp();
  const qc = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const owners = threshold === null ? 'the owners' : `${threshold} owners`;
  return (
    <div className="owners-revoke">
      <button
        type="button"
        className="button secondary danger"
        onClick={() => setConfirming(true)}
        data-testid="revoke-allowance"
      >
        Revoke the service’s allowance
      </button>
      <StatusNote text={note} />
      {confirming && (
        <ConfirmDialog
          title="Revoke the service’s allowance?"
          confirmLabel="Ask the owners to revoke it"
          danger
          onClose={() => setConfirming(false)}
          onConfirm={async () => {
            try {
              await client.treasury.revokeAllowance();
            } catch (error) {
              // Nothing left to revoke (409) is said as such in the dialog; anything else as the dashboard says it.
              const refusal = toApiError(error);
              if (refusal.code !== 'INVALID_STATE') throw refusal;
              throw new ApiError('NOTHING_TO_REVOKE', refusal.status, revokeRefusalWords(refusal));
            }
            await qc.invalidateQueries({ queryKey: K.ownersRequests });
            setNote(`Revocation asked: it is listed above and takes effect once ${owners} have signed it.`);
          }}
        >
          <p>
            Once {owners} sign the revocation, the chain lets the service take nothing more from the owners’
            account: payments beyond its float then wait for the owners’ signatures. A new allowance is
            granted with the set-up’s treasury-prepare and treasury-grant.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
