import { describe, expect, it } from 'vitest';
import {
  approvalCountText,
  approvalNote,
  approvalsLeft,
  approverName,
  hasApproved,
} from '../src/views/approvalWords.ts';
import { describeAuditAction, describeAuditActor } from '../src/views/auditWords.ts';
import { invitationFrom, invitationLink } from '../src/views/invitation.ts';
import { removalNote } from '../src/views/memberWords.ts';
import { approvalSentence, approvalWhy } from '../src/views/violations.ts';

const approval = (memberId: string, email: string) => ({ memberId, email, at: '2026-01-02T03:04:05.000Z' });

describe('approvals by several members', () => {
  it('counts "1 of 2 approvals" only where more than one is needed', () => {
    expect(approvalCountText({ approvalsRequired: 2, approvals: [] })).toBe('0 of 2 approvals');
    expect(approvalCountText({ approvalsRequired: 2, approvals: [approval('m1', 'a@x.co')] })).toBe(
      '1 of 2 approvals',
    );
    expect(approvalCountText({ approvalsRequired: 1, approvals: [] })).toBeNull();
    expect(approvalCountText({ approvalsRequired: null, approvals: [] })).toBeNull();
  });

  it('knows what is left and who already approved', () => {
    const tx = { approvalsRequired: 3, approvals: [approval('m1', 'a@x.co')] };
    expect(approvalsLeft(tx)).toBe(2);
    expect(hasApproved(tx, 'm1')).toBe(true);
    expect(hasApproved(tx, 'm2')).toBe(false);
    expect(hasApproved(tx, undefined)).toBe(false);
    expect(approverName(approval('m1', 'a@x.co'), 'm1')).toBe('you');
    expect(approverName(approval('m1', 'a@x.co'), 'm2')).toBe('a@x.co');
  });

  it('says after an approval whether the payment went or waits for more', () => {
    const waiting = {
      status: 'pending' as const,
      approvalsRequired: 2,
      approvals: [approval('m1', 'a@x.co')],
    };
    expect(approvalNote(waiting, '50.00 USDC', 'Pending')).toBe(
      'Your approval of the 50.00 USDC payment is recorded (1 of 2 approvals): 1 more approval needed.',
    );
    expect(approvalNote({ ...waiting, approvalsRequired: 3 }, '50.00 USDC', 'Pending')).toMatch(
      /\(1 of 3 approvals\): 2 more approvals needed\.$/,
    );
    expect(approvalNote({ ...waiting, status: 'completed' as const }, '50.00 USDC', 'Completed')).toBe(
      'Payment of 50.00 USDC approved: now Completed.',
    );
  });
});

describe('why a payment waits for several approvals', () => {
  it('reads the server’s require_approvals reason as a threshold, without ids or wire amounts', () => {
    const why = approvalWhy('above the approval threshold of 5.000000, 2 approvers (policy pol_abc)');
    expect(why).toEqual({ kind: 'threshold', threshold: '5.000000' });
    expect(approvalSentence(why, '10.000000')).toBe('10.00 USDC is above your 5.00 USDC approval threshold.');
    expect(
      approvalWhy(
        'above the approval threshold of 5.000000, 2 approvers (policy pol_a); above the approval threshold of 8.000000 (policy pol_b)',
      ),
    ).toEqual({ kind: 'threshold', threshold: '8.000000' });
  });
});

describe('the audit log in words', () => {
  it('names people by email, agents by key label, never an id', () => {
    expect(describeAuditActor({ type: 'member', id: 'u1', label: 'ann@x.co' })).toBe('ann@x.co');
    expect(describeAuditActor({ type: 'member', id: 'u1', label: 'ann@x.co' }, 'u1')).toBe('You (ann@x.co)');
    expect(describeAuditActor({ type: 'member', id: 'u9', label: null })).toBe('A former member');
    // An email is shown as it is, never capitalised.
    expect(describeAuditActor({ type: 'member', id: 'u2', label: 'bob@x.co' }, 'u1')).toBe('bob@x.co');
    expect(describeAuditActor({ type: 'agent', id: 'key_1', label: 'bot prod' })).toBe('API key ‘bot prod’');
    expect(describeAuditActor({ type: 'agent', id: 'key_1', label: null })).toBe('An API key');
    expect(describeAuditActor({ type: 'system', id: 'system', label: null })).toBe('The service');
  });

  it('turns operations and payment statuses into words', () => {
    expect(describeAuditAction('createPolicy')).toBe('Create policy');
    expect(describeAuditAction('approveTransaction')).toBe('Approve transaction');
    expect(describeAuditAction('transaction.completed')).toBe('Payment completed');
    expect(describeAuditAction('transaction.pending_approval')).toBe('Payment pending approval');
  });
});

describe('invitation links', () => {
  it('round-trip the token and the email through the query string', () => {
    const link = invitationLink('http://localhost:8787/', 'tok+/=en', 'new.member+1@example.com');
    expect(link).toBe('http://localhost:8787/?invite=tok%2B%2F%3Den&email=new.member%2B1%40example.com');
    expect(invitationFrom(new URL(link).search)).toEqual({
      token: 'tok+/=en',
      email: 'new.member+1@example.com',
    });
  });

  it('are absent without a token, or with an oversized one', () => {
    expect(invitationFrom('')).toBeNull();
    expect(invitationFrom('?email=a@b.co')).toBeNull();
    expect(invitationFrom(`?invite=${'x'.repeat(129)}`)).toBeNull();
    expect(invitationFrom('invite=abc')).toEqual({ token: 'abc', email: '' });
  });
});

describe('a removal’s note', () => {
  const removal = { id: 'm', deleted: true, removed: true } as const;
  const keys = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ id: `k${i}`, label: `key ${i}`, walletId: 'w' }));
  it('names what ended, at most three by name', () => {
    expect(
      removalNote('a@x.co', {
        ...removal,
        revokedKeys: keys(5),
        revokedOAuth: [],
        keptKeys: [],
        keptOAuth: [],
      }),
    ).toBe('a@x.co is removed from the organization. Revoked: 5 API keys (key 0, key 1, key 2 and 2 more).');
  });
  it('names what was kept, and says so when there was nothing', () => {
    const app = { id: 'c', clientName: 'Cursor', walletId: 'w' };
    expect(
      removalNote('a@x.co', {
        ...removal,
        revokedKeys: [],
        revokedOAuth: [],
        keptKeys: [],
        keptOAuth: [app],
      }),
    ).toBe('a@x.co is removed from the organization. Still working, as you chose: 1 connected app (Cursor).');
    expect(
      removalNote('a@x.co', { ...removal, revokedKeys: [], revokedOAuth: [], keptKeys: [], keptOAuth: [] }),
    ).toBe('a@x.co is removed from the organization. They had made no API key or connected app.');
  });
});
