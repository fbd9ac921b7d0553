// Model-based (fast-check) test of the policy engine: for random policies, payments and spending so far,
// evaluatePolicies reports exactly the violations a small reference model finds (caps inclusive, allowlist
// membership), and asks for approval exactly when the amount is above a threshold. FC_SEED reproduces a failure.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { type ActivePolicy, evaluatePolicies, NO_WINDOWS, type PolicyRule } from './policies.ts';

const RUNS = Number(process.env.FC_RUNS ?? 500);
const seed = process.env.FC_SEED === undefined ? {} : { seed: Number(process.env.FC_SEED) };
const ADDRESSES = ['0x01', '0x02', '0x03', '0x04'].map((a) => a.padEnd(42, '0'));

const micros = fc.bigInt({ min: 0n, max: 50_000_000n });
const ruleArb: fc.Arbitrary<PolicyRule> = fc.oneof(
  fc.record({
    type: fc.constantFrom('spend_cap_per_tx', 'spend_cap_daily', 'spend_cap_total'),
    limitMicros: micros,
  }),
  fc.record({
    type: fc.constant('address_allowlist' as const),
    addresses: fc.subarray(ADDRESSES).map((list) => new Set(list)),
  }),
  fc.record({ type: fc.constant('require_approval_above' as const), amountMicros: micros }),
);

/** The reference: each rule judged on its own, in the plainest words. */
function referenceViolations(
  rule: PolicyRule,
  amount: bigint,
  to: string,
  day: bigint,
  all: bigint,
): boolean {
  if (rule.type === 'spend_cap_per_tx') return amount > rule.limitMicros;
  if (rule.type === 'spend_cap_daily') return day + amount > rule.limitMicros;
  if (rule.type === 'spend_cap_total') return all + amount > rule.limitMicros;
  if (rule.type === 'address_allowlist') return !rule.addresses.has(to);
  return false;
}

test('evaluatePolicies reports exactly the violations and approvals the reference model finds', () => {
  fc.assert(
    fc.property(
      fc.array(ruleArb, { maxLength: 6 }),
      fc.bigInt({ min: 1n, max: 60_000_000n }),
      fc.constantFrom(...ADDRESSES),
      micros,
      micros,
      (rules, amount, to, day, extra) => {
        const all = day + extra; // all-time spending is never below the last 24 hours'
        const policies: ActivePolicy[] = rules.map((rule, i) => ({ id: `pol_${i}`, rule }));
        const decision = evaluatePolicies(
          policies,
          { amountMicros: amount, toAddress: to, nowMs: 0 },
          {
            last24hMicros: day,
            allTimeMicros: all,
            windows: NO_WINDOWS,
          },
        );
        const expectedViolations = policies
          .filter((p) => referenceViolations(p.rule, amount, to, day, all))
          .map((p) => p.id);
        assert.deepEqual(
          decision.violations.map((v) => v.policyId),
          expectedViolations,
        );
        for (const v of decision.violations) assert.ok(v.reason.length > 0 && v.policyType.length > 0);
        const expectedApprovals = policies
          .filter((p) => p.rule.type === 'require_approval_above' && amount > p.rule.amountMicros)
          .map((p) => p.id);
        assert.deepEqual(
          decision.approvalRequiredBy.map((a) => a.policyId),
          expectedApprovals,
        );
      },
    ),
    { numRuns: RUNS, includeErrorInReport: true, ...seed },
  );
});
