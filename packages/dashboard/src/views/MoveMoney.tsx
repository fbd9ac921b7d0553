// Fund (master -> agent) or withdraw (agent -> master). Each submission carries an Idempotency-Key; the key is
// kept for a retry of the same amount after an unknown outcome (network error, 429, 5xx) so a retry can never
// move the money twice, and replaced after a success, a definite refusal or a changed amount.
import type { AgentWallet, ManagementClient, MasterWallet } from '@agent-wallet/sdk';
import { useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useRef, useState } from 'react';
import type { ApiError } from '../api/errors.ts';
import { AmountInput, amountError } from '../components/AmountInput.tsx';
import { StatusNote } from '../components/Common.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { newIdempotencyKey } from '../ids.ts';
import { formatUsdc } from '../money.ts';
import { applyMovement, K, useAction, usePeek } from '../queries.ts';

export function MoveForm({
  sdk,
  wallet,
  direction,
}: {
  sdk: ManagementClient;
  wallet: AgentWallet;
  direction: 'fund' | 'withdraw';
}) {
  const qc = useQueryClient();
  const master = usePeek<MasterWallet>(K.master);
  const [amount, setAmount] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  const attempt = useRef<{ key: string; amount: string } | null>(null);
  const action = useAction();
  const inputRef = useRef<HTMLInputElement>(null);
  const fund = direction === 'fund';
  const max = fund ? master?.balance : wallet.balance;
  const maxLabel = fund ? 'the master wallet balance' : "this wallet's available balance";

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    setNote(null);
    if (amountError(amount, max, maxLabel) !== null) return inputRef.current?.focus();
    const value = amount.trim();
    if (attempt.current === null || attempt.current.amount !== value) {
      attempt.current = { key: newIdempotencyKey(), amount: value };
    }
    const params = { amount: value, idempotencyKey: attempt.current.key };
    const error: ApiError | null = await action.run(async () => {
      const movement = fund
        ? await sdk.agentWallets.fund(wallet.id, params)
        : await sdk.agentWallets.withdraw(wallet.id, params);
      applyMovement(qc, movement);
    });
    if (error === null || !error.retryable) attempt.current = null;
    if (error === null) {
      setAmount('');
      setSubmitted(false);
      setNote(
        fund
          ? `Moved ${formatUsdc(value)} into this wallet.`
          : `Moved ${formatUsdc(value)} back to the master wallet.`,
      );
    }
  }

  return (
    <form onSubmit={onSubmit} noValidate className="stack-form" aria-label={fund ? 'Fund' : 'Withdraw'}>
      <AmountInput
        label={fund ? 'Fund from master wallet' : 'Withdraw to master wallet'}
        value={amount}
        onChange={setAmount}
        showError={submitted}
        max={max}
        maxLabel={maxLabel}
        hint={max !== undefined ? `Available: ${formatUsdc(max)}` : undefined}
        inputRef={inputRef}
      />
      <button type="submit" className="button primary" disabled={action.busy}>
        {action.busy ? 'Working…' : fund ? 'Fund' : 'Withdraw'}
      </button>
      <ErrorMessage error={action.error} />
      <StatusNote text={note} />
    </form>
  );
}
