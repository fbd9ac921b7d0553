// The dashboard's own words for amounts, reasons, actors and counterparties (issue 15: never raw 6-place server
// strings or ids).
import type { Transaction } from '@agent-wallet/sdk';
import { describe, expect, it } from 'vitest';
import {
  amountView,
  authorizedBeyond,
  counterpartyOf,
  describeActor,
  formatDateTime,
  formatRelative,
  paidWith,
  receiptOf,
  resourceLabel,
  shortReceipt,
  timeLeft,
} from '../src/format.ts';
import { approvalSentence, approvalWhy, describeNote, describeViolation } from '../src/views/violations.ts';

const tx = (fields: Partial<Transaction> & { resource?: string | null }) =>
  ({
    type: 'payment',
    status: 'completed',
    amount: '150.000000',
    toAddress: null,
    ...fields,
  }) as Transaction & {
    resource?: string | null;
  };

describe('amounts', () => {
  it('signs money that moved and leaves money that did not unsigned', () => {
    expect(amountView(tx({}))).toEqual({ text: '−150.00 USDC', moved: true, direction: 'out' });
    expect(amountView(tx({ type: 'fund', amount: '1234.5' }))).toEqual({
      text: '+1,234.50 USDC',
      moved: true,
      direction: 'in',
    });
    expect(amountView(tx({ status: 'pending' })).text).toBe('−150.00 USDC');
    for (const status of ['rejected', 'failed', 'expired'] as const) {
      expect(amountView(tx({ status }))).toEqual({ text: '150.00 USDC', moved: false, direction: 'none' });
    }
  });

  it('writes violations from the structured fields, in the user’s format', () => {
    const base = { policyId: 'pol_0mws1', reason: 'amount 150.000000 is above 100.000000' };
    const perTx = describeViolation({
      ...base,
      policyType: 'spend_cap_per_tx',
      limit: '100.000000',
      attempted: '150.000000',
    });
    expect(perTx).toBe('Over the 100.00 USDC per-payment cap (tried 150.00)');
    expect(perTx).not.toMatch(/000000|pol_/);
  });
});

describe('approval reasons', () => {
  it('turns the server’s threshold text into a sentence, without its id or 6 places', () => {
    const why = approvalWhy('above the approval threshold of 10.000000 (policy pol_0mws9x)');
    expect(why).toEqual({ kind: 'threshold', threshold: '10.000000' });
    expect(approvalSentence(why, '20.000000')).toBe(
      '20.00 USDC is above your 10.00 USDC approval threshold.',
    );
  });

  it('takes the highest of several thresholds', () => {
    const why = approvalWhy(
      'above the approval threshold of 10.000000 (policy pol_a); above the approval threshold of 25.500000 (policy pol_b)',
    );
    expect(why).toEqual({ kind: 'threshold', threshold: '25.500000' });
  });

  it('keeps an agent’s own reason as its text', () => {
    expect(approvalWhy('Invoice <b>#42</b> is due')).toEqual({
      kind: 'asked',
      reason: 'Invoice <b>#42</b> is due',
    });
    expect(approvalSentence(approvalWhy('x'), '1')).toBe('The agent asked for your approval:');
    expect(approvalSentence(approvalWhy(null), '1')).toBe(
      'The agent asked for your approval without giving a reason.',
    );
  });

  it('rewrites audit notes that are the server’s words, keeps people’s words quoted', () => {
    expect(describeNote('above the approval threshold of 10.000000 (policy pol_x)', null)).toEqual({
      text: 'Above your 10.00 USDC approval threshold',
      quoted: false,
    });
    const violations = [{ policyId: 'p', policyType: 'spend_cap_per_tx' as const, reason: 'too much' }];
    expect(describeNote('too much', violations)).toEqual({ text: 'Denied by a policy', quoted: false });
    expect(describeNote('Not this month', null)).toEqual({ text: 'Not this month', quoted: true });
  });
});

describe('actors', () => {
  const labels = new Map([['key_0mwsgqzre', 'research-bot prod']]);
  it('names keys by their label, the owner as you, expiry as automatic; never an id', () => {
    expect(describeActor('key:key_0mwsgqzre', labels)).toBe('API key ‘research-bot prod’');
    expect(describeActor('key:key_gone', labels)).toBe('an API key of this wallet');
    expect(describeActor('user:usr_1')).toBe('you');
    expect(describeActor('system', undefined, 'expired')).toBe('expired automatically');
    expect(describeActor('system')).toBe('the service');
    expect(describeActor('external')).toBe('a payer outside your account');
    expect(describeActor('admin:42')).not.toContain('42');
  });
});

describe('counterparties', () => {
  const own = new Map([
    ['0x00000000000000000000000000000000000000aa', 'Research bot'],
    ['0x00000000000000000000000000000000000000bb', 'Master wallet'],
  ]);
  it('names the user’s own wallets, shortens other addresses', () => {
    expect(
      counterpartyOf(tx({ toAddress: '0x00000000000000000000000000000000000000AA' }), own),
    ).toMatchObject({
      name: 'Research bot',
      own: true,
    });
    expect(counterpartyOf(tx({ toAddress: `0x${'ab'.repeat(20)}` }), own).name).toBe('0xababab…ababab');
    expect(counterpartyOf(tx({ type: 'fund' }), own).name).toBe('From the master wallet');
    expect(counterpartyOf(tx({ type: 'withdraw' }), own).name).toBe('To the master wallet');
  });

  it('shows an x402 payment’s resource as host and path, and copes without one', () => {
    const paid = tx({
      type: 'x402',
      resource: 'https://api.example.com/v1/report',
      toAddress: `0x${'cd'.repeat(20)}`,
    });
    expect(counterpartyOf(paid, own)).toEqual({
      name: 'api.example.com/v1/report',
      detail: 'https://api.example.com/v1/report',
      own: false,
    });
    expect(counterpartyOf(tx({ type: 'x402', toAddress: `0x${'cd'.repeat(20)}` }), own).name).toBe(
      '0xcdcdcd…cdcdcd',
    );
    expect(counterpartyOf(tx({ type: 'x402', resource: null }), own).name).toBe('An HTTP API');
    expect(resourceLabel('https://api.example.com/')).toBe('api.example.com');
    expect(resourceLabel('not a url')).toBe('not a url');
    expect(resourceLabel(undefined)).toBeNull();
  });
});

describe('how a paid request paid', () => {
  it('names the protocol and scheme of a paid request, and nothing for other transactions', () => {
    expect(paidWith(tx({ type: 'x402', protocol: 'x402', scheme: 'exact' }))).toBe('x402 exact');
    expect(paidWith(tx({ type: 'x402', protocol: 'mpp', scheme: 'charge' }))).toBe('MPP charge');
    expect(paidWith(tx({ type: 'x402', protocol: 'x402', scheme: 'upto' }))).toBe('x402 upto');
    // Older paid requests and other transactions do not carry the fields.
    expect(paidWith(tx({ type: 'x402' }))).toBeNull();
    expect(paidWith(tx({ type: 'payment', protocol: 'x402', scheme: 'exact' }))).toBeNull();
    // A protocol or scheme newer than this dashboard is shown as it came.
    expect(paidWith(tx({ type: 'x402', protocol: 'l402' as 'x402', scheme: 'stream' as 'exact' }))).toBe(
      'l402 stream',
    );
    expect(paidWith(tx({ type: 'x402', protocol: 'mpp' }))).toBe('MPP');
  });

  it('shows the seller’s receipt shortened, and only a paid request’s', () => {
    const receipt = `eyJzdWNjZXNzIjp0cnVl${'QUJD'.repeat(50)}fQ==`;
    expect(receiptOf(tx({ type: 'x402', receipt }))).toBe(receipt);
    expect(receiptOf(tx({ type: 'x402', receipt: null }))).toBeNull();
    expect(receiptOf(tx({ type: 'x402', receipt: '  ' }))).toBeNull();
    expect(receiptOf(tx({ type: 'payment', receipt }))).toBeNull();
    expect(shortReceipt(receipt)).toBe('eyJzdWNjZXNzIjp0…QUJDfQ==');
    expect(shortReceipt('short-receipt')).toBe('short-receipt');
  });

  it('says what an authorization allowed only when it was more than the amount', () => {
    const paid = { type: 'x402' as const, amount: '0.010000' };
    expect(authorizedBeyond(tx({ ...paid, authorizedAmount: '0.010000' }))).toBeNull();
    expect(authorizedBeyond(tx({ ...paid, authorizedAmount: '0.01' }))).toBeNull();
    expect(authorizedBeyond(tx({ ...paid, authorizedAmount: '0.500000' }))).toBe('0.500000');
    expect(authorizedBeyond(tx({ ...paid, authorizedAmount: 'lots' }))).toBeNull();
    expect(authorizedBeyond(tx({ ...paid }))).toBeNull();
  });
});

describe('times', () => {
  it('shows seconds, and a relative hint', () => {
    expect(formatDateTime('2026-05-12T14:03:27Z')).toMatch(/:27/);
    const now = Date.parse('2026-05-12T14:10:00Z');
    expect(formatRelative('2026-05-12T14:09:58Z', now)).toBe('now');
    expect(formatRelative('2026-05-12T14:09:30Z', now)).toBe('30 seconds ago');
    expect(formatRelative('2026-05-12T14:05:00Z', now)).toBe('5 minutes ago');
    expect(formatRelative('2026-05-11T14:10:00Z', now)).toBe('yesterday');
    expect(formatRelative('2026-05-12T16:10:00Z', now)).toBe('in 2 hours');
  });

  it('says how long an approval has left', () => {
    const now = Date.parse('2026-05-12T00:00:00Z');
    expect(timeLeft('2026-05-15T00:00:00Z', now)).toBe('3 days left');
    expect(timeLeft('2026-05-13T05:00:00Z', now)).toBe('1 day 5 h left');
    expect(timeLeft('2026-05-12T03:20:00Z', now)).toBe('3 h 20 min left');
    expect(timeLeft('2026-05-12T00:45:00Z', now)).toBe('45 min left');
    expect(timeLeft('2026-05-12T00:00:30Z', now)).toBe('Under a minute left');
    expect(timeLeft('2026-05-11T00:00:00Z', now)).toBe('Expired');
    expect(timeLeft(null, now)).toBe('No expiry');
  });
});
