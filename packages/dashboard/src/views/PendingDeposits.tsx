// USDC on its way in (evm rail): transfers the chain shows that are not deep enough to be credited yet, with how
// deep they are. Polled every few seconds while on screen; a deposit that leaves the list has been credited.

import { shortAddress } from '../address.ts';
import type { PendingDeposit } from '../api/types.ts';
import { LoadError, Loading } from '../components/Common.tsx';
import { TxHash } from '../components/TxHash.tsx';
import { usePendingDeposits } from '../data.ts';
import { formatUsdc } from '../money.ts';
import { DEPOSIT_POLL_INTERVAL_MS, useVisiblePolling } from '../polling.ts';

/** "1 of 3 confirmations" (never more than required: past it the deposit is about to be credited). */
export function confirmationsText(confirmations: number, required: number): string {
  const done = Math.max(0, Math.min(confirmations, required));
  return `${done} of ${required} confirmation${required === 1 ? '' : 's'}`;
}

export function PendingDepositRow({ deposit }: { deposit: PendingDeposit }) {
  const required = Math.max(1, deposit.confirmationsRequired);
  return (
    <li className="row pending-deposit" data-testid="pending-deposit">
      <span className="row-amount">+{formatUsdc(deposit.amount)}</span>
      <span className="row-meta">
        <TxHash hash={deposit.txHash} /> · to{' '}
        <code className="hash" title={deposit.address}>
          {shortAddress(deposit.address)}
        </code>
      </span>
      <span className="confirmations">
        <progress
          max={required}
          value={Math.max(0, Math.min(deposit.confirmations, required))}
          aria-hidden="true"
        />
        <span data-testid="pending-confirmations">{confirmationsText(deposit.confirmations, required)}</span>
      </span>
    </li>
  );
}

export function PendingDeposits() {
  const pending = usePendingDeposits();
  useVisiblePolling(pending.reload, DEPOSIT_POLL_INTERVAL_MS, 'wallet');
  const data = pending.data;
  return (
    <div className="pending-deposits">
      <h3 id="pending-deposits-title">Deposits on their way</h3>
      {data === undefined ? (
        pending.error !== undefined ? (
          <LoadError error={pending.error} onRetry={pending.reload} />
        ) : (
          <Loading />
        )
      ) : data.items.length === 0 ? (
        <p className="empty" data-testid="no-pending-deposits">
          No deposits on their way.
        </p>
      ) : (
        <>
          <ul className="rows" data-testid="pending-deposits">
            {data.items.map((deposit) => (
              <PendingDepositRow key={`${deposit.txHash}:${deposit.logIndex}`} deposit={deposit} />
            ))}
          </ul>
          {data.total > data.items.length && (
            <p className="hint">
              The newest {data.items.length} of {data.total} are shown.
            </p>
          )}
        </>
      )}
      {data !== undefined && pending.error !== undefined && (
        <LoadError error={pending.error} onRetry={pending.reload} />
      )}
    </div>
  );
}
