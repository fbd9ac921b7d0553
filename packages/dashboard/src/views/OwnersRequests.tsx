// A bounded treasury's requests on the overview's Treasury card: what waits for the owners' signatures (a
// withdrawal the allowance could not cover, a revocation of the service's allowance) and what they signed lately.
// An owner signs with their browser wallet (EIP-1193: eth_requestAccounts, then eth_signTypedData_v4 of the
// request's signRequest) and the signature is handed in; whether the signer is one of the account's owners is the
// server's decision, shown in words. Members whose role may not sign see the list without the buttons.
import { type QueryClient, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { shortAddress } from '../address.ts';
import { signWithBrowserWallet, WalletProblem } from '../api/browserWallet.ts';
import { toApiError } from '../api/errors.ts';
import type { OwnersRequest } from '../api/treasury.ts';
import { useApp, useCan } from '../app-context.ts';
import { LoadError, Loading, StatusNote } from '../components/Common.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { StatusTag } from '../components/StatusTag.tsx';
import { formatDateTime } from '../format.ts';
import { K, pollDelay, STALE, useResource } from '../queries.ts';
import {
  expiresWords,
  ownersRequestWords,
  signatureProgressWords,
  signatureRefusalWords,
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

export function OwnersRequests({ threshold }: { threshold: number | null }) {
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
            <RequestRow key={request.id} request={request} />
          ))}
        </ul>
      )}
      {useCan()('revokeAllowance') && <RevokeAllowance threshold={threshold} />}
    </div>
  );
}

function RequestRow({ request }: { request: OwnersRequest }) {
  const maySign = useCan()('signTreasury');
  const waiting = request.status === 'awaiting_signatures';
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
              {shortAddress(owner)}{' '}
            </code>
          ))}
        </span>
      )}
      {expires !== null && <span className="row-meta">{expires}</span>}
      {maySign && waiting && <SignButton request={request} />}
    </li>
  );
}

function SignButton({ request }: { request: OwnersRequest }) {
  const { client } = useApp();
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);

  async function sign() {
    setBusy(true);
    setProblem(null);
    setNote(null);
    try {
      const { signer, signature } = await signWithBrowserWallet(request.signRequest.typedData);
      try {
        const progress = await client.treasury.sign(request.id, signature);
        setNote(`Signed with ${shortAddress(signer)}. ${signatureProgressWords(progress)}.`);
      } catch (error) {
        setProblem(signatureRefusalWords(toApiError(error), signer));
      }
      await qc.invalidateQueries({ queryKey: K.ownersRequests });
      await qc.invalidateQueries({ queryKey: K.treasury });
    } catch (error) {
      setProblem(error instanceof WalletProblem ? error.message : toApiError(error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <span className="owners-request-sign">
      <button
        type="button"
        className="button small"
        onClick={() => void sign()}
        disabled={busy}
        aria-label={`Sign with your wallet: ${ownersRequestWords(request)}`}
      >
        {busy ? 'Waiting for your wallet…' : 'Sign with your wallet'}
      </button>
      {problem !== null && (
        <span className="error-message" role="alert" data-testid="owners-request-refused">
          {problem}
        </span>
      )}
      <StatusNote text={note} />
    </span>
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
            await client.treasury.revokeAllowance();
            await qc.invalidateQueries({ queryKey: K.ownersRequests });
            setNote(`The revocation waits for ${owners}’ signatures below.`);
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
