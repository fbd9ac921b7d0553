// Taking money out of the master wallet (contract section 8): the withdrawal address book (a new address waits
// before it can be used, so one added by someone else can be removed in time), the withdraw form (to an active
// address only; an Idempotency-Key per withdrawal, kept for a retry after an unknown outcome so the money never
// leaves twice), and the withdrawals made. Adding an address and withdrawing need a recent step-up: the
// step-up dialog (StepUp.tsx) appears by itself when the server asks for one.
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type RefObject, useEffect, useId, useRef, useState } from 'react';
import { shortAddress } from '../address.ts';
import type { Withdrawal, WithdrawalAddress, WithdrawalPage } from '../api/custody.ts';
import { toApiError } from '../api/errors.ts';
import { useApp, useCan } from '../app-context.ts';
import { AmountInput, amountError } from '../components/AmountInput.tsx';
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
import { newIdempotencyKey } from '../ids.ts';
import { formatUsdc } from '../money.ts';
import {
  K,
  markStale,
  type ResourceState,
  STALE,
  updateData,
  useAction,
  useMasterWallet,
  useResource,
  WITHDRAWAL_POLL_INTERVAL_MS,
  WITHDRAWALS_PAGE_SIZE,
} from '../queries.ts';
import {
  ADDRESS_LABEL_MAX,
  activeAddresses,
  addressDraftErrors,
  describeDelay,
  formatCountdown,
  isActive,
  labelOf,
  MEMO_MAX,
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

interface WithdrawDraft {
  toAddress: string;
  amount: string;
  memo: string;
}

/**
 * A withdrawal from the master wallet, with its Idempotency-Key: the same key for a retry of the same withdrawal
 * after an unknown outcome (network error, 429, 5xx), a new one after any definite answer or for other values.
 * The caches of what it changes are brought up to date.
 */
function useWithdraw(): (draft: WithdrawDraft) => Promise<Withdrawal> {
  const { client } = useApp();
  const qc = useQueryClient();
  const attempt = useRef<{ key: string; draft: WithdrawDraft } | null>(null);
  return async (draft) => {
    const same =
      attempt.current !== null &&
      attempt.current.draft.toAddress === draft.toAddress &&
      attempt.current.draft.amount === draft.amount &&
      attempt.current.draft.memo === draft.memo;
    if (!same) attempt.current = { key: newIdempotencyKey(), draft };
    const key = attempt.current?.key ?? newIdempotencyKey();
    let done: Withdrawal;
    try {
      done = await client.custody.withdraw({
        toAddress: draft.toAddress,
        amount: draft.amount,
        ...(draft.memo === '' ? {} : { memo: draft.memo }),
        idempotencyKey: key,
      });
    } catch (error) {
      if (!toApiError(error).retryable) attempt.current = null;
      throw error;
    }
    attempt.current = null;
    updateData<WithdrawalPage>(qc, K.withdrawals(1), (page) => ({
      ...page,
      items: [done, ...page.items.filter((item) => item.id !== done.id)].slice(0, page.limit),
      total: page.total + 1,
    }));
    markStale(qc, K.withdrawalsAll);
    void qc.invalidateQueries({ queryKey: K.withdrawals(1) });
    void qc.invalidateQueries({ queryKey: K.master });
    void qc.invalidateQueries({ queryKey: K.treasury });
    markStale(qc, K.depositsAll);
    return done;
  };
}

/** The address book's usable entries to choose from, with the form's error under it once submitted. */
function AddressSelect(props: {
  usable: WithdrawalAddress[];
  value: string;
  onChange: (address: string) => void;
  problem: string | null;
  selectRef: RefObject<HTMLSelectElement | null>;
}) {
  const selectId = useId();
  const errorId = `${selectId}-error`;
  return (
    <div className="field">
      <label htmlFor={selectId}>To address</label>
      <select
        id={selectId}
        ref={props.selectRef}
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
        aria-invalid={props.problem !== null ? true : undefined}
        aria-describedby={props.problem !== null ? errorId : undefined}
      >
        <option value="">Choose an address…</option>
        {props.usable.map((entry) => (
          <option key={entry.id} value={entry.address}>
            {entry.label} — {shortAddress(entry.address)}
          </option>
        ))}
      </select>
      {props.problem !== null && (
        <p id={errorId} className="field-error">
          {props.problem}
        </p>
      )}
    </div>
  );
}

/** What the form says once a withdrawal is accepted: done, or on its way. */
function withdrawnNote(done: Withdrawal, amount: string, entries: WithdrawalAddress[]): string {
  const to = labelOf(entries, done.toAddress) ?? shortAddress(done.toAddress);
  return done.status === 'completed'
    ? `Withdrew ${formatUsdc(amount)} to “${to}”.`
    : `Withdrawing ${formatUsdc(amount)} to “${to}”: on its way (${done.status}).`;
}

/** The last question before money leaves: how much, to which address (its label and in full). */
function ConfirmWithdrawal(props: {
  draft: WithdrawDraft;
  label: string;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}) {
  const { draft } = props;
  return (
    <ConfirmDialog
      title="Withdraw from the master wallet?"
      confirmLabel={`Withdraw ${formatUsdc(draft.amount)}`}
      danger
      onConfirm={props.onConfirm}
      onClose={props.onClose}
    >
      <p>
        {formatUsdc(draft.amount)} leaves the master wallet for “
        <span className="user-text">{props.label}</span>” (<code>{draft.toAddress}</code>). A withdrawal
        cannot be undone.
      </p>
    </ConfirmDialog>
  );
}

function WithdrawForm({ entries }: { entries: WithdrawalAddress[] | undefined }) {
  const master = useMasterWallet();
  const withdrawNow = useWithdraw();
  const [toAddress, setToAddress] = useState('');
  const [amount, setAmount] = useState('');
  const [memo, setMemo] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const [confirming, setConfirming] = useState<WithdrawDraft | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const amountRef = useRef<HTMLInputElement>(null);
  const selectRef = useRef<HTMLSelectElement>(null);
  const usable = activeAddresses(entries ?? [], Date.now());
  const chosen = usable.find((entry) => entry.address === toAddress);
  const balance = master.data?.balance;
  const addressProblem = chosen === undefined ? 'Choose an address from your address book.' : null;

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    setNote(null);
    if (addressProblem !== null) return selectRef.current?.focus();
    if (amountError(amount, balance, 'the master wallet balance') !== null) return amountRef.current?.focus();
    setConfirming({ toAddress, amount: amount.trim(), memo: memo.trim() });
  }

  async function withdraw(draft: WithdrawDraft) {
    const done = await withdrawNow(draft);
    setAmount('');
    setMemo('');
    setSubmitted(false);
    setNote(withdrawnNote(done, draft.amount, entries ?? []));
  }

  return (
    <div className="subsection">
      <h3>Withdraw to an address</h3>
      {entries !== undefined && usable.length === 0 ? (
        <p className="empty">
          No address can be used yet. Add one above; it can be used once its waiting time is over.
        </p>
      ) : (
        <form
          className="stack-form"
          onSubmit={onSubmit}
          noValidate
          aria-label="Withdraw from the master wallet"
        >
          <AddressSelect
            usable={usable}
            value={toAddress}
            onChange={setToAddress}
            problem={submitted ? addressProblem : null}
            selectRef={selectRef}
          />
          <AmountInput
            label="Amount to withdraw"
            value={amount}
            onChange={setAmount}
            showError={submitted}
            max={balance}
            maxLabel="the master wallet balance"
            hint={balance !== undefined ? `Available: ${formatUsdc(balance)}` : undefined}
            inputRef={amountRef}
          />
          <TextField
            label="Memo (optional)"
            value={memo}
            onChange={setMemo}
            maxLength={MEMO_MAX}
            hint="A note for your records; it is stored with the withdrawal."
          />
          <button type="submit" className="button primary">
            Withdraw
          </button>
        </form>
      )}
      <StatusNote text={note} />
      {confirming !== null && (
        <ConfirmWithdrawal
          draft={confirming}
          label={labelOf(entries ?? [], confirming.toAddress) ?? ''}
          onConfirm={() => withdraw(confirming)}
          onClose={() => setConfirming(null)}
        />
      )}
    </div>
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
