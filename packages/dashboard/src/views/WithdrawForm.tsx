// The master wallet's withdrawal form: an address from the book, an amount, a last question, then the
// idempotent withdrawal.
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, type RefObject, useId, useRef, useState } from 'react';
import { shortAddress } from '../address.ts';
import type { Withdrawal, WithdrawalAddress, WithdrawalPage } from '../api/custody.ts';
import { toApiError } from '../api/errors.ts';
import { useApp } from '../app-context.ts';
import { AmountInput, amountError } from '../components/AmountInput.tsx';
import { StatusNote } from '../components/Common.tsx';
import { ConfirmDialog } from '../components/ConfirmDialog.tsx';
import { TextField } from '../components/TextField.tsx';
import { newIdempotencyKey } from '../ids.ts';
import { formatUsdc } from '../money.ts';
import { K, markStale, updateData, useMasterWallet } from '../queries.ts';
import { activeAddresses, labelOf, MEMO_MAX } from './withdrawals.ts';

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

export function WithdrawForm({ entries }: { entries: WithdrawalAddress[] | undefined }) {
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
