// "Try a payment": what the wallet's policies would decide for a payment now, in words. Nothing is paid, held or
// stored (POST /policies/simulate).

import type { AgentWallet, Page, CheckPaymentResult as PaymentCheck, Policy } from '@agent-wallet/sdk';
import { type FormEvent, type RefObject, useEffect, useRef, useState } from 'react';
import { checkAddress, shortAddress } from '../address.ts';
import { useApp } from '../app-context.ts';
import { AmountInput, amountError } from '../components/AmountInput.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { TextField } from '../components/TextField.tsx';
import { formatCap, formatUsdc } from '../money.ts';
import { K, useAction, usePeek } from '../queries.ts';
import { policyTitle } from './policyInfo.ts';
import { deniedBy, describeViolation } from './violations.ts';

export type CheckOutcome = 'pass' | 'approval' | 'denied' | 'refused';

export function checkOutcome(result: PaymentCheck): CheckOutcome {
  if (result.allowed) return result.requiresApproval ? 'approval' : 'pass';
  return result.violations.length > 0 ? 'denied' : 'refused';
}

/** The headline of a simulated payment's answer. */
export function checkHeadline(result: PaymentCheck): string {
  switch (checkOutcome(result)) {
    case 'pass':
      return 'Would pass: the payment would go through now.';
    case 'approval':
      return 'Needs your approval: the payment would wait for you to approve or reject it.';
    case 'denied':
      return `${deniedBy(result.violations.length)}: the payment would be refused.`;
    case 'refused':
      if (result.refusal?.code === 'WALLET_FROZEN') return 'Would not go through: this wallet is frozen.';
      if (result.refusal?.code === 'INSUFFICIENT_BALANCE')
        return 'Would not go through: the wallet does not have enough available balance.';
      return 'Would not go through.';
  }
}

interface Asked {
  toAddress: string;
  amount: string;
}

/** Which policies (and their state) a result was computed against: a change makes the result stale. */
function policiesSignature(page: Page<Policy> | undefined): string {
  return (page?.items ?? []).map((p) => `${p.id}:${p.active}:${p.updatedAt}`).join('|');
}

export function PolicySimulator({ wallet }: { wallet: AgentWallet }) {
  const { sdk } = useApp();
  const [toAddress, setToAddress] = useState('');
  const [amount, setAmount] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const [result, setResult] = useState<{ asked: Asked; answer: PaymentCheck } | null>(null);
  const action = useAction();
  const addressRef = useRef<HTMLInputElement>(null);
  const amountRef = useRef<HTMLInputElement>(null);
  const signature = policiesSignature(usePeek<Page<Policy>>(K.policies(wallet.id)));
  const checkedWith = useRef(signature);
  const addressCheck = checkAddress(toAddress);
  const addressProblem = addressCheck.ok ? null : addressCheck.reason;

  // A policy added, changed, paused or deleted since: the answer shown no longer holds.
  useEffect(() => {
    if (signature !== checkedWith.current) setResult(null);
  }, [signature]);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    setSubmitted(true);
    if (addressProblem !== null) return addressRef.current?.focus();
    if (amountError(amount) !== null) return amountRef.current?.focus();
    const asked = { toAddress: toAddress.trim(), amount: amount.trim() };
    setResult(null);
    await action.run(async () => {
      const answer = await sdk.policies.simulate(wallet.id, asked);
      checkedWith.current = signature;
      setResult({ asked, answer });
    });
  }

  return (
    <section className="subsection" aria-labelledby={`simulate-${wallet.id}`}>
      <h3 id={`simulate-${wallet.id}`}>Try a payment</h3>
      <p className="hint">
        See what the policies would decide if the agent sent this payment now. Nothing is paid, held or
        stored.
      </p>
      <form className="simulate-form" onSubmit={onSubmit} noValidate aria-label="Try a payment">
        <PaymentFields
          toAddress={toAddress}
          onToAddress={setToAddress}
          addressRef={addressRef}
          addressError={submitted ? addressProblem : null}
          amount={amount}
          onAmount={setAmount}
          amountRef={amountRef}
          showAmountError={submitted}
        />
        <ErrorMessage error={action.error} />
        <button type="submit" className="button secondary" disabled={action.busy}>
          {action.busy ? 'Checking…' : 'Check payment'}
        </button>
      </form>
      <div role="status" className="simulation-region">
        {result !== null && <CheckResult asked={result.asked} answer={result.answer} />}
      </div>
    </section>
  );
}

/** The payment to try: a recipient address and an amount. */
function PaymentFields({
  toAddress,
  onToAddress,
  addressRef,
  addressError,
  amount,
  onAmount,
  amountRef,
  showAmountError,
}: {
  toAddress: string;
  onToAddress: (value: string) => void;
  addressRef: RefObject<HTMLInputElement | null>;
  addressError: string | null;
  amount: string;
  onAmount: (value: string) => void;
  amountRef: RefObject<HTMLInputElement | null>;
  showAmountError: boolean;
}) {
  return (
    <div className="field-row">
      <TextField
        label="Recipient address"
        value={toAddress}
        onChange={onToAddress}
        inputRef={addressRef}
        error={addressError}
        placeholder="0x…"
        autoComplete="off"
        spellCheck={false}
        className="mono"
      />
      <AmountInput
        label="Amount"
        value={amount}
        onChange={onAmount}
        showError={showAmountError}
        inputRef={amountRef}
      />
    </div>
  );
}

function CheckResult({ asked, answer }: { asked: Asked; answer: PaymentCheck }) {
  const outcome = checkOutcome(answer);
  const goesThrough = outcome === 'pass' || outcome === 'approval';
  return (
    <div
      className={`simulation simulation-${outcome}`}
      data-testid="simulation-result"
      data-outcome={outcome}
    >
      <p className="simulation-headline">
        <strong>{checkHeadline(answer)}</strong>
      </p>
      {answer.violations.length > 0 && (
        <ul className="violations" data-testid="simulation-violations">
          {answer.violations.map((violation) => (
            <li key={violation.policyId}>
              <strong>{policyTitle(violation.policyType)}</strong>: {describeViolation(violation)}
            </li>
          ))}
        </ul>
      )}
      <dl className="tx-meta">
        <div>
          <dt>Payment</dt>
          <dd>
            {formatUsdc(asked.amount)} to <code title={asked.toAddress}>{shortAddress(asked.toAddress)}</code>
          </dd>
        </div>
        <div>
          <dt>{goesThrough ? 'Available balance after' : 'Available balance stays'}</dt>
          <dd data-testid="simulation-balance">{formatUsdc(answer.balanceAfter)}</dd>
        </div>
        {answer.dailyCapRemaining !== null && (
          <div>
            <dt>Daily cap remaining now</dt>
            <dd>{formatCap(answer.dailyCapRemaining)}</dd>
          </div>
        )}
        {answer.totalCapRemaining !== null && (
          <div>
            <dt>Total cap remaining now</dt>
            <dd>{formatCap(answer.totalCapRemaining)}</dd>
          </div>
        )}
      </dl>
    </div>
  );
}
