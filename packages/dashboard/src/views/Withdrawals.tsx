// Taking money out of the master wallet (contract section 8): the withdrawal address book (a new address waits
// before it can be used, so one added by someone else can be removed in time), the withdraw form (to an active
// address only; an Idempotency-Key per withdrawal, kept for a retry after an unknown outcome so the money never
// leaves twice), and the withdrawals made. Adding an address and withdrawing need a recent step-up: the
// step-up dialog (StepUp.tsx) appears by itself when the server asks for one.
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { shortAddress } from '../address.ts';
import type { Withdrawal, WithdrawalAddress, WithdrawalPage } from '../api/custody.ts';
import { useApp, useCan } from '../app-context.ts';
import { LoadError, Loading, StatusNote } from '../components/Common.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { CopyButton } from '../components/CopyButton.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Pagination } from '../components/Pagination.tsx';
import { StatusTag } from '../components/StatusTag.tsx';
import { TextField } from '../components/TextField.tsx';
import { TxHash } from '../components/TxHash.tsx';
import { useCountdown } from '../components/useCountdown.ts';
import { formatDateTime } from '../format.ts';
import { formatUsdc } from '../money.ts';
import {
  K,
  type ResourceState,
  STALE,
  updateData,
  useAction,
  useResource,
  WITHDRAWAL_POLL_INTERVAL_MS,
  WITHDRAWALS_PAGE_SIZE,
} from '../queries.ts';
import { WithdrawForm } from './WithdrawForm.tsx';
import {
  ADDRESS_LABEL_MAX,
  addressDraftErrors,
  describeDelay,
  formatCountdown,
  isActive,
  labelOf,
} from './withdrawals.ts';

type Book = { items: WithdrawalAddress[] };

/** The address book, the withdraw form and the withdrawals, on the master wallet page. */
export function WithdrawSection() {
  const { client } = useApp();
  const book = useResource<Book>(
    K.withdrawalAddresses,
    () => client.custody.withdrawalAddresses(),
    STALE.withdrawals,
  );
  const mayWithdraw = useCan()('withdrawMaster');
  return (
    <section className="card" aria-labelledby="withdraw-title" data-testid="withdraw-section">
      <h2 id="withdraw-title">Withdraw</h2>
      <p className="hint">
        Money leaves the master wallet only to an address in your address book. A new address waits before it
        can be used, so that one added by someone else can be removed in time. Adding an address and
        withdrawing ask you to confirm it is you.
      </p>
      {!mayWithdraw && (
        <p className="hint" data-testid="withdraw-owner-only">
          Only an owner of the organization can change the address book or withdraw.
        </p>
      )}
      <AddressBook book={book} />
      {mayWithdraw && <WithdrawForm entries={book.data?.items} />}
      <WithdrawalsList entries={book.data?.items ?? []} />
    </section>
  );
}

function AddressBook({ book }: { book: ResourceState<Book> }) {
  const { client } = useApp();
  const qc = useQueryClient();
  const [removing, setRemoving] = useState<WithdrawalAddress | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const mayManage = useCan()('manageAddressBook');

  async function onRemove(entry: WithdrawalAddress) {
    await client.custody.removeWithdrawalAddress(entry.id);
    updateData<Book>(qc, K.withdrawalAddresses, (data) => ({
      items: data.items.filter((item) => item.id !== entry.id),
    }));
    setNote(`“${entry.label}” is removed from the address book; nothing more can be withdrawn to it.`);
  }

  const data = book.data;
  return (
    <div className="subsection">
      <h3>Address book</h3>
      {data === undefined ? (
        book.error !== undefined ? (
          <LoadError error={book.error} onRetry={book.reload} />
        ) : (
          <Loading />
        )
      ) : data.items.length === 0 ? (
        <p className="empty">No addresses yet.{mayManage ? ' Add the first one below.' : ''}</p>
      ) : (
        <ul className="rows" data-testid="withdrawal-addresses" aria-label="Withdrawal addresses">
          {data.items.map((entry) => (
            <AddressEntry
              key={entry.id}
              entry={entry}
              onRemove={mayManage ? () => setRemoving(entry) : null}
            />
          ))}
        </ul>
      )}
      <StatusNote text={note} />
      {mayManage && <AddAddressForm onAdded={(message) => setNote(message)} />}
      {removing !== null && (
        <ConfirmDialog
          title="Remove this address?"
          confirmLabel="Remove address"
          onConfirm={() => onRemove(removing)}
          onClose={() => setRemoving(null)}
        >
          <p>
            “<span className="user-text">{removing.label}</span>” (<code>{removing.address}</code>) leaves the
            address book at once. Adding it again starts its waiting time again.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}

function AddressEntry({ entry, onRemove }: { entry: WithdrawalAddress; onRemove: (() => void) | null }) {
  const qc = useQueryClient();
  const until = Date.parse(entry.activatesAt);
  const seconds = useCountdown(entry.status === 'pending' && !Number.isNaN(until) ? until : null);
  const active = isActive(entry, Date.now()) || (entry.status === 'pending' && seconds === 0);
  // The wait is over on this clock: ask the server once, so the book and the form agree with it.
  useEffect(() => {
    if (entry.status === 'pending' && active) void qc.invalidateQueries({ queryKey: K.withdrawalAddresses });
  }, [entry.status, active, qc]);
  return (
    <li className="row withdrawal-address" data-testid="withdrawal-address">
      <span className="wallet-name user-text">{entry.label}</span>
      <StatusTag status={active ? 'active' : 'pending'} />
      <span className="row-meta">
        <code title={entry.address}>{shortAddress(entry.address)}</code>{' '}
        <CopyButton text={entry.address} label={`Copy the address of ${entry.label}`} />
      </span>
      <span className="row-meta">
        {active ? (
          `Usable since ${formatDateTime(entry.activatesAt)}`
        ) : (
          <>
            Usable in{' '}
            <span role="timer" aria-live="off" data-testid="activates-in">
              {formatCountdown(seconds)}
            </span>{' '}
            (at {formatDateTime(entry.activatesAt)})
          </>
        )}
      </span>
      {onRemove !== null && (
        <button type="button" className="button secondary small" onClick={onRemove}>
          Remove<span className="visually-hidden"> {entry.label}</span>
        </button>
      )}
    </li>
  );
}

function AddAddressForm({ onAdded }: { onAdded: (message: string) => void }) {
  const { client } = useApp();
  const qc = useQueryClient();
  const [label, setLabel] = useState('');
  const [address, setAddress] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const action = useAction();
  const labelRef = useRef<HTMLInputElement>(null);
  const addressRef = useRef<HTMLInputElement>(null);
  const errors = addressDraftErrors({ label, address });

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (errors.label !== undefined) return labelRef.current?.focus();
    if (errors.address !== undefined) return addressRef.current?.focus();
    const error = await action.run(async () => {
      const added = await client.custody.addWithdrawalAddress(address.trim(), label.trim());
      updateData<Book>(qc, K.withdrawalAddresses, (data) => ({
        items: [...data.items.filter((item) => item.id !== added.id), added],
      }));
      void qc.invalidateQueries({ queryKey: K.withdrawalAddresses });
      const wait = Math.round((Date.parse(added.activatesAt) - Date.parse(added.createdAt)) / 1000);
      onAdded(
        added.status === 'active'
          ? `“${added.label}” is added and can be used now.`
          : `“${added.label}” is added. It can be used after a wait of ${describeDelay(wait)}, from ${formatDateTime(added.activatesAt)}.`,
      );
    });
    if (error === null) {
      setLabel('');
      setAddress('');
      setSubmitted(false);
    }
  }

  return (
    <form className="create-key" onSubmit={onSubmit} noValidate aria-label="Add a withdrawal address">
      <h4 className="form-title">Add an address</h4>
      <TextField
        label="Name of the address"
        value={label}
        onChange={setLabel}
        inputRef={labelRef}
        maxLength={ADDRESS_LABEL_MAX * 2}
        error={submitted ? errors.label : null}
        hint="For you to recognise it, e.g. “Cold storage”."
      />
      <TextField
        label="Address"
        value={address}
        onChange={setAddress}
        inputRef={addressRef}
        spellCheck={false}
        autoComplete="off"
        placeholder="0x…"
        error={submitted ? errors.address : null}
      />
      <button type="submit" className="button primary" disabled={action.busy}>
        {action.busy ? 'Adding…' : 'Add address'}
      </button>
      <ErrorMessage error={action.error} />
    </form>
  );
}

function WithdrawalsList({ entries }: { entries: WithdrawalAddress[] }) {
  const { client } = useApp();
  const [page, setPage] = useState(1);
  const [processing, setProcessing] = useState(false);
  const withdrawals = useResource<WithdrawalPage>(
    K.withdrawals(page),
    () => client.custody.withdrawals(page, WITHDRAWALS_PAGE_SIZE),
    STALE.withdrawals,
    { refetchInterval: processing ? WITHDRAWAL_POLL_INTERVAL_MS : false },
  );
  const data = withdrawals.data;
  const anyProcessing = data?.items.some((item) => item.status === 'processing') ?? false;
  useEffect(() => setProcessing(anyProcessing), [anyProcessing]);
  return (
    <div className="subsection">
      <h3>Withdrawals</h3>
      {data === undefined ? (
        withdrawals.error !== undefined ? (
          <LoadError error={withdrawals.error} onRetry={withdrawals.reload} />
        ) : (
          <Loading />
        )
      ) : data.items.length === 0 ? (
        <p className="empty">No withdrawals yet.</p>
      ) : (
        <ul className="rows" data-testid="withdrawals" aria-label="Withdrawals">
          {data.items.map((item) => (
            <WithdrawalRow key={item.id} item={item} label={labelOf(entries, item.toAddress)} />
          ))}
        </ul>
      )}
      {data !== undefined && (
        <Pagination
          page={page}
          limit={WITHDRAWALS_PAGE_SIZE}
          total={data.total}
          onPage={setPage}
          label="Withdrawal pages"
        />
      )}
    </div>
  );
}

function WithdrawalRow({ item, label }: { item: Withdrawal; label: string | null }) {
  return (
    <li className="row withdrawal" data-testid="withdrawal">
      <span className="row-amount withdrawal-amount">−{formatUsdc(item.amount)}</span>
      <StatusTag status={item.status} />
      <span className="row-meta">
        to {label === null ? '' : <span className="user-text">“{label}” </span>}
        <code title={item.toAddress}>{shortAddress(item.toAddress)}</code> · {formatDateTime(item.createdAt)}{' '}
        · rail {item.rail}
        {item.txHash !== null && (
          <>
            {' '}
            · <TxHash hash={item.txHash} />
          </>
        )}
      </span>
      {item.memo !== null && item.memo !== '' && <span className="row-meta user-text">{item.memo}</span>}
    </li>
  );
}
