// Approvals by several members (contract section 9), by property: random sequences of approve and reject by
// members, thresholds 2–5, decided by nextApproval, against a reference model written from the contract's words.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { keepsAnOwner, ROLES, roleAllows } from '../organizations/roles.ts';
import { type ApprovalMark, nextApproval } from './approvals.ts';

type Answer = { kind: 'approve' | 'reject'; member: string };
type Final = { status: 'pending' | 'executed' | 'rejected'; executions: number; approvers: string[] };

/** The system under test: a pending payment answered one by one through nextApproval. */
function decide(needed: number, answers: readonly Answer[]): Final & { refused: number } {
  let status: Final['status'] = 'pending';
  let executions = 0;
  let refused = 0;
  const approvals: ApprovalMark[] = [];
  for (const [i, answer] of answers.entries()) {
    if (status !== 'pending') {
      refused += 1; // INVALID_STATE: no longer pending
      continue;
    }
    if (answer.kind === 'reject') {
      status = 'rejected';
      continue;
    }
    const step = nextApproval(approvals, answer.member, needed);
    if (step.kind === 'duplicate') {
      refused += 1;
      continue;
    }
    approvals.push({ memberId: answer.member, email: `${answer.member}@x`, atMs: i });
    if (step.kind === 'execute') {
      status = 'executed';
      executions += 1;
    }
  }
  return { status, executions, refused, approvers: approvals.map((a) => a.memberId) };
}

/** The contract's words: N distinct approvals before any reject execute it, once; a reject first rejects it. */
function model(needed: number, answers: readonly Answer[]): Final {
  const distinct: string[] = [];
  for (const answer of answers) {
    if (answer.kind === 'reject') return { status: 'rejected', executions: 0, approvers: distinct };
    if (!distinct.includes(answer.member)) distinct.push(answer.member);
    if (distinct.length === needed) return { status: 'executed', executions: 1, approvers: distinct };
  }
  return { status: 'pending', executions: 0, approvers: distinct };
}

const answersArb = fc.array(
  fc.record({
    kind: fc.constantFrom<'approve' | 'reject'>('approve', 'approve', 'approve', 'reject'),
    member: fc.constantFrom('m1', 'm2', 'm3', 'm4', 'm5', 'm6'),
  }),
  { maxLength: 30 },
);

test('distinct approvals up to the threshold execute the payment exactly once; one reject rejects', () => {
  fc.assert(
    fc.property(fc.integer({ min: 2, max: 5 }), answersArb, (needed, answers) => {
      const got = decide(needed, answers);
      const expected = model(needed, answers);
      assert.equal(got.status, expected.status);
      assert.equal(got.executions, expected.executions);
      assert.deepEqual(got.approvers, expected.approvers);
      assert.ok(got.executions <= 1);
      assert.equal(new Set(got.approvers).size, got.approvers.length, 'a member counted twice');
    }),
    { numRuns: 2_000 },
  );
});

test('a member approving twice is refused and not counted', () => {
  const marks: ApprovalMark[] = [{ memberId: 'm1', email: 'm1@x', atMs: 0 }];
  assert.deepEqual(nextApproval(marks, 'm1', 3), { kind: 'duplicate' });
  assert.deepEqual(nextApproval(marks, 'm2', 3), { kind: 'recorded', count: 2, needed: 3 });
  assert.deepEqual(nextApproval(marks, 'm2', 2), { kind: 'execute', count: 2, needed: 2 });
  assert.throws(() => nextApproval(marks, 'm2', 1), /holds 1 of 1/);
});

test('roles nest, and a change keeps an owner', () => {
  for (const role of ROLES) assert.ok(roleAllows(role, 'viewer'));
  assert.ok(!roleAllows('approver', 'admin'));
  assert.ok(roleAllows('admin', 'approver'));
  assert.ok(!roleAllows('admin', 'owner'));
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 5 }),
      fc.constantFrom(...ROLES),
      fc.option(fc.constantFrom(...ROLES), { nil: null }),
      (owners, target, next) => {
        const left = owners - (target === 'owner' ? 1 : 0) + (next === 'owner' ? 1 : 0);
        assert.equal(keepsAnOwner(owners, target, next), left >= 1);
      },
    ),
  );
});
