// The overview's Treasury card (evm rail only): who holds the money on chain and what whoever breached the server
// could move now (GET /wallet/treasury). A hot treasury's key holds all of it, so all of it is at risk; a bounded
// one lists what waits for the owners' signatures below (OwnersRequests.tsx), and offers an owner the change of
// the owners and threshold (OwnersChangeForm.tsx). While the chain cannot be read (503)
// the card says so calmly and asks again every little while.
import type { TreasuryView } from '@agent-wallet/sdk';
import { useQueryClient } from '@tanstack/react-query';
import { shortAddress } from '../address.ts';
import { toApiError } from '../api/errors.ts';
import { useApp } from '../app-context.ts';
import { LoadError, Loading } from '../components/Common.tsx';
import { formatDateTime } from '../format.ts';
import { formatUsdc } from '../money.ts';
import { K, pollDelay, STALE, useResource } from '../queries.ts';
import { OwnersChange } from './OwnersChangeForm.tsx';
import { OwnersRequests } from './OwnersRequests.tsx';
import {
  allowanceWords,
  atRiskWords,
  BOUNDED_NOTE,
  TREASURY_UNAVAILABLE,
  treasuryModeWords,
} from './treasuryWords.ts';

/** While the chain cannot be read, the treasury is asked again this often (ms). */
export const TREASURY_RETRY_MS = 15_000;

const isUnavailable = (error: unknown) => error != null && toApiError(error).code === 'SERVICE_UNAVAILABLE';

export function TreasuryCard() {
  const { sdk, client } = useApp();
  const qc = useQueryClient();
  const treasury = useResource<TreasuryView>(K.treasury, () => sdk.walletTreasury(), STALE.treasury, {
    // Only while the chain cannot be read: asked again until it can, then left to the staleness rule.
    refetchInterval: () =>
      isUnavailable(qc.getQueryState(K.treasury)?.error)
        ? pollDelay(client.budget('wallet'), Date.now(), TREASURY_RETRY_MS)
        : false,
  });
  const { data, error } = treasury;
  // A server without the view (an older version) has nothing to show here.
  if (error?.code === 'NOT_FOUND') return null;
  const unavailable = error?.code === 'SERVICE_UNAVAILABLE';
  return (
    <section
      className="card overview-treasury"
      aria-labelledby="treasury-title"
      data-testid="overview-treasury"
    >
      <h2 id="treasury-title">Treasury</h2>
      {data !== undefined ? <Figures view={data} /> : error === undefined ? <Loading /> : null}
      {data?.mode === 'bounded' && (
        <OwnersRequests threshold={data.threshold} walletOwners={data.owners.length > 0} />
      )}
      {data !== undefined && <OwnersChange view={data} />}
      {error !== undefined &&
        (unavailable ? (
          <p className="hint" role="status" data-testid="treasury-unavailable">
            {TREASURY_UNAVAILABLE}
          </p>
        ) : (
          <LoadError error={error} onRetry={treasury.reload} />
        ))}
    </section>
  );
}

function Figures({ view }: { view: TreasuryView }) {
  return (
    <>
      <p className="treasury-mode" data-testid="treasury-mode" data-mode={view.mode}>
        {treasuryModeWords(view)}.
      </p>
      <p className="treasury-float" data-testid="treasury-float">
        Float: <strong>{formatUsdc(view.float)}</strong> in{' '}
        <code className="hash" title={view.account}>
          {shortAddress(view.account)}
        </code>
      </p>
      {view.allowance !== null && (
        <p className="treasury-allowance" data-testid="treasury-allowance">
          {allowanceWords(view.allowance, formatDateTime)}
        </p>
      )}
      <p className="treasury-at-risk" data-testid="treasury-at-risk">
        {atRiskWords(view.atRisk)}
      </p>
      {view.mode === 'hot' && (
        <p className="hint" data-testid="treasury-bounded-note">
          {BOUNDED_NOTE}
        </p>
      )}
    </>
  );
}
