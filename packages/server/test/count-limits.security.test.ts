// Issue 10, defect 11: count limits raced on PostgreSQL (count, then insert, no lock): creations racing each
// other could pass "at most 50 policies per wallet" and "at most 100 usable keys per wallet". Both stores.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { KEYS_PER_WALLET_MAX } from '../src/services/keys/keys.ts';
import { POLICIES_PER_WALLET_MAX } from '../src/services/policies/policies.ts';
import { agentWithKey } from './support/agent.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';

const EXTRA = 15;

for (const target of await storeTargets()) {
  describe(`count limits under racing creations (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'count_limits');
    });
    after(() => h.close());

    test(`${POLICIES_PER_WALLET_MAX + EXTRA} racing policy creations: exactly ${POLICIES_PER_WALLET_MAX} succeed`, async () => {
      const { user, walletId } = await agentWithKey(h);
      const url = `/api/v1/agent-wallets/${walletId}/policies`;
      const replies = await Promise.all(
        Array.from({ length: POLICIES_PER_WALLET_MAX + EXTRA }, (_, i) =>
          user.api.post(url, { type: 'spend_cap_per_tx', params: { limit: String(i + 1) } }),
        ),
      );
      const statuses = replies.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 201).length, POLICIES_PER_WALLET_MAX, statuses.join(','));
      assert.ok(
        statuses.every((s) => s === 201 || s === 400),
        statuses.join(','),
      );
      const listed = await user.api.get(`${url}?limit=100`);
      assert.equal(listed.body.data.total, POLICIES_PER_WALLET_MAX);
    });

    test(`${KEYS_PER_WALLET_MAX + EXTRA} racing key creations: exactly ${KEYS_PER_WALLET_MAX} usable keys`, async () => {
      const { user, walletId } = await agentWithKey(h); // holds one key already
      const url = `/api/v1/agent-wallets/${walletId}/keys`;
      const replies = await Promise.all(
        Array.from({ length: KEYS_PER_WALLET_MAX + EXTRA }, (_, i) => user.api.post(url, { label: `k${i}` })),
      );
      const statuses = replies.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 201).length, KEYS_PER_WALLET_MAX - 1, statuses.join(','));
      assert.ok(
        statuses.every((s) => s === 201 || s === 400),
        statuses.join(','),
      );
      const listed = await user.api.get(`${url}?limit=100`);
      assert.equal(listed.body.data.total, KEYS_PER_WALLET_MAX);
    });
  });
}
