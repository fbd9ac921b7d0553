// USDC on its way in (evm rail): transfers the chain shows that are not deep enough to be credited yet, with how
// deep they are. Polled every few seconds while on screen; a deposit that leaves the list has been credited.

import type { Page, PendingDeposit } from '@agent-wallet/sdk';
import { useQueryClient } from '@tanstack/react-query';
import { shortAddress } from '../address.ts';
import { useApp } from '../app-context.ts';
import { LoadError, Loading } from '../components/Common.tsx';
import { TxHash } from '../components/TxHash.tsx';
import { formatUsdc } from '../money.ts';
import {
  DEPOSIT_POLL_INTERVAL_MS,
  K,
  PENDING_DEPOSITS_LIMIT,
  pollDelay,
  type ResourceState,
  STALE,
  useResource,
} from '../queries.ts';

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

const depositId = (deposit: PendingDeposit) => `${deposit.txHash}:${deposit.logIndex}`;

/**
 * The USDC transfers on their way in (evm rail), polled every few seconds while shown. One that left the list
 * since the last load was credited (or dropped by a re-org): the balances and deposit lists are reloaded.
 */
function usePendingDeposits(): ResourceState<Page<PendingDeposit>> {
  const { sdk, client } = useApp();
  const qc = useQueryClient();
  return useResource(
    K.pendingDeposits,
    async () => {
      const page = await sdk.pendingDeposits({ page: 1, limit: PENDING_DEPOSITS_LIMIT });
      const before = qc.getQueryData<Page<PendingDeposit>>(K.pendingDeposits);
      const still = new Set(page.items.map(depositId));
      const gone = before?.items.filter((deposit) => !still.has(depositId(deposit))) ?? [];
      if (gone.length > 0) {
        void qc.invalidateQueries({ queryKey: K.master });
        void qc.invalidateQueries({ queryKey: K.treasury });
        void qc.invalidateQueries({ queryKey: K.depositsAll });
        void qc.invalidateQueries({ queryKey: K.agentWallets });
      }
      return page;
    },
    STALE.pendingDeposits,
    { refetchInterval: () => pollDelay(client.budget('wallet'), Date.now(), DEPOSIT_POLL_INTERVAL_MS) },
  );
}

export function PendingDeposits() {
  const pending = usePendingDeposits();
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
