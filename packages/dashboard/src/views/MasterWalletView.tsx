import type { Deposit, Page } from '@agent-wallet/sdk';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';
import { useApp, useCan } from '../app-context.ts';
import { AmountInput, amountError } from '../components/AmountInput.tsx';
import { AddressRow, LoadError, Loading, StatusNote } from '../components/Common.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { PagedRows } from '../components/PagedRows.tsx';
import { PageHeading } from '../components/PageHeading.tsx';
import { TxHash } from '../components/TxHash.tsx';
import { formatDateTime, plural } from '../format.ts';
import { formatUsdc } from '../money.ts';
import {
  addDeposit,
  DEPOSITS_PAGE_SIZE,
  K,
  STALE,
  setMasterBalance,
  useAction,
  useMasterWallet,
  useResource,
} from '../queries.ts';
import { AlertsCard } from './AlertsCard.tsx';
import { PendingDeposits } from './PendingDeposits.tsx';
import { WithdrawSection } from './Withdrawals.tsx';

export function MasterWalletView() {
  const { sandbox, chain } = useApp();
  const master = useMasterWallet();
  const mayDeposit = useCan()('sandboxDeposit');
  return (
    <>
      <PageHeading title="Master wallet">Master wallet</PageHeading>
      <p className="lead">
        Your main balance. Move money from here into agent wallets and back, or withdraw it to an address of
        your own.
      </p>
      <section className="card" aria-label="Balance and address">
        {master.data !== undefined ? (
          <>
            <div className="balance">
              <span className="stat-label">Balance</span>
              <span className="balance-value" data-testid="master-balance">
                {formatUsdc(master.data.balance)}
              </span>
            </div>
            <AddressRow address={master.data.address} testId="master-address" />
          </>
        ) : master.error !== undefined ? (
          <LoadError error={master.error} onRetry={master.reload} />
        ) : (
          <Loading />
        )}
      </section>
      {sandbox && mayDeposit && <SandboxDepositForm />}
      {chain !== null && <ChainDepositCard address={master.data?.address} />}
      {master.data !== undefined && <AlertsCard walletId={master.data.id} agent={false} />}
      <WithdrawSection />
      <DepositsList />
    </>
  );
}

/** evm rail: money comes in as USDC sent on chain to the master address, credited after some blocks. */
function ChainDepositCard({ address }: { address: string | undefined }) {
  const { chain } = useApp();
  const confirmations = chain?.confirmations ?? null;
  return (
    <section className="card" aria-labelledby="chain-deposit-title" data-testid="chain-deposit">
      <h2 id="chain-deposit-title">Add USDC</h2>
      <p className="hint">
        Send USDC on this service’s network to this address. Only USDC on that network counts; it is credited
        {confirmations === null
          ? ' once the transfer is confirmed'
          : ` once the transfer is ${plural(confirmations, 'block')} deep`}
        .
      </p>
      {address === undefined ? (
        <Loading />
      ) : (
        <AddressRow
          address={address}
          label="Deposit address"
          copyLabel="Copy deposit address"
          testId="deposit-address"
        />
      )}
      <PendingDeposits />
    </section>
  );
}

function SandboxDepositForm() {
  const { sdk } = useApp();
  const qc = useQueryClient();
  const [amount, setAmount] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const action = useAction();
  const inputRef = useRef<HTMLInputElement>(null);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    setNote(null);
    if (amountError(amount) !== null) return inputRef.current?.focus();
    const value = amount.trim();
    const error = await action.run(async () => {
      const result = await sdk.sandboxDeposit(value);
      const { balance, ...deposit } = result;
      setMasterBalance(qc, balance);
      addDeposit(qc, deposit);
    });
    if (error === null) {
      setAmount('');
      setSubmitted(false);
      setNote(`Deposited ${formatUsdc(value)} of sandbox money.`);
    }
  }

  return (
    <section className="card sandbox-card" aria-labelledby="sandbox-deposit-title">
      <h2 id="sandbox-deposit-title">Sandbox deposit</h2>
      <p className="hint">This server runs on the sandbox rail: add simulated USDC to try things out.</p>
      <form className="inline-form" onSubmit={onSubmit} noValidate>
        <AmountInput
          label="Amount to deposit"
          value={amount}
          onChange={setAmount}
          showError={submitted}
          inputRef={inputRef}
        />
        <button type="submit" className="button primary" disabled={action.busy}>
          {action.busy ? 'Depositing…' : 'Deposit'}
        </button>
      </form>
      <ErrorMessage error={action.error} />
      <StatusNote text={note} />
    </section>
  );
}

function DepositsList() {
  const { sdk } = useApp();
  const [page, setPage] = useState(1);
  const deposits = useResource<Page<Deposit>>(
    K.deposits(page),
    () => sdk.deposits({ page, limit: DEPOSITS_PAGE_SIZE }),
    STALE.master,
  );
  return (
    <section className="card" aria-labelledby="deposits-title">
      <h2 id="deposits-title">Deposits</h2>
      <PagedRows
        resource={deposits}
        page={page}
        limit={DEPOSITS_PAGE_SIZE}
        onPage={setPage}
        empty="No deposits yet."
        testId="deposits"
        pagesLabel="Deposit pages"
        row={(deposit) => (
          <>
            <span className="row-amount">+{formatUsdc(deposit.amount)}</span>
            <span className="row-meta">
              {formatDateTime(deposit.createdAt)} · rail {deposit.rail}
              {deposit.txHash !== null && (
                <>
                  {' '}
                  · <TxHash hash={deposit.txHash} />
                </>
              )}
            </span>
          </>
        )}
      />
    </section>
  );
}
