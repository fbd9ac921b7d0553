// Seed section 5.3: every scope × every tool, and keys never reaching another wallet's money.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { balances, createKey, fund, OUTSIDE_ADDRESS, tool } from './support/agent.helpers.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { expectError, fundedUser } from './support/http.ts';

const PARAMS: Record<string, Record<string, unknown>> = {
  check_balance: {},
  get_tx_history: { limit: 5 },
  send_payment: { toAddress: OUTSIDE_ADDRESS, amount: '1' },
  request_approval: { toAddress: OUTSIDE_ADDRESS, amount: '1', reason: 'test' },
};
const NEEDS: Record<string, 'read' | 'write'> = {
  check_balance: 'read',
  get_tx_history: 'read',
  send_payment: 'write',
  request_approval: 'write',
};
const SCOPE_SETS: Array<[string, unknown]> = [
  ['read', ['read']],
  ['write', ['write']],
  ['read,write', ['read', 'write']],
  ['default', undefined],
  ['"read,write" string', 'read,write'],
];

for (const target of await storeTargets()) {
  describe(`scope matrix (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'scopes');
    });
    after(() => h.close());

    test('each scope set allows exactly its tools', async () => {
      const { user, walletId } = await fundedUser(h.app, '100');
      await fund(user, walletId, '50');
      for (const [name, scopes] of SCOPE_SETS) {
        const key = await createKey(
          user,
          walletId,
          scopes === undefined ? { label: name } : { label: name, scopes },
        );
        const granted =
          scopes === undefined
            ? ['read', 'write']
            : typeof scopes === 'string'
              ? scopes.split(',')
              : (scopes as string[]);
        for (const toolName of Object.keys(PARAMS)) {
          const reply = await tool(h.app, key, toolName, PARAMS[toolName]);
          const needed = NEEDS[toolName]!;
          if (granted.includes(needed)) {
            assert.equal(reply.status, 200, `${name} × ${toolName}: ${reply.raw}`);
            assert.equal(reply.body.tool, toolName);
          } else {
            expectError(reply, 403, 'INSUFFICIENT_SCOPE');
            assert.match(reply.body.error.message, new RegExp(`"${needed}"`), `${name} × ${toolName}`);
            assert.equal(reply.body.tool, toolName);
          }
        }
      }
    });

    test("a key sees and moves only its own wallet's money", async () => {
      const alice = await fundedUser(h.app, '100');
      const bob = await fundedUser(h.app, '100');
      await fund(alice.user, alice.walletId, '40');
      await fund(bob.user, bob.walletId, '60');
      const aliceKey = await createKey(alice.user, alice.walletId);
      const bobKey = await createKey(bob.user, bob.walletId);
      const seen = await tool(h.app, aliceKey, 'check_balance');
      assert.equal(seen.body.data.walletId, alice.walletId);
      // No parameter can point a key at another wallet: unknown fields are refused outright.
      for (const smuggled of [
        { walletId: bob.walletId },
        { wallet: bob.walletId },
        { fromAddress: bob.wallet.address },
      ]) {
        expectError(await tool(h.app, aliceKey, 'check_balance', smuggled), 400, 'VALIDATION_ERROR');
        expectError(
          await tool(h.app, aliceKey, 'send_payment', { ...PARAMS.send_payment, ...smuggled }),
          400,
          'VALIDATION_ERROR',
        );
      }
      const history = await tool(h.app, aliceKey, 'get_tx_history', { limit: 100 });
      assert.ok(history.body.data.transactions.every((t: { amount: string }) => t.amount !== '60.000000'));
      assert.deepEqual(await balances(h.app, bobKey), { balance: '60.000000', heldBalance: '0.000000' });
      // Alice's key paying Bob's address moves Alice's money to Bob, never the reverse.
      const paid = await tool(h.app, aliceKey, 'send_payment', {
        toAddress: bob.wallet.address,
        amount: '5',
      });
      assert.equal(paid.body.data.status, 'completed');
      assert.deepEqual(await balances(h.app, aliceKey), { balance: '35.000000', heldBalance: '0.000000' });
      assert.deepEqual(await balances(h.app, bobKey), { balance: '65.000000', heldBalance: '0.000000' });
      // Bob's owner sees the payment as incoming; Alice's owner cannot read Bob's wallet at all.
      const bobTx = await bob.user.api.get(`/api/v1/agent-wallets/${bob.walletId}/transactions`);
      assert.equal(bobTx.body.data.transactions[0].type, 'incoming');
      expectError(
        await alice.user.api.get(`/api/v1/agent-wallets/${bob.walletId}/transactions`),
        404,
        'NOT_FOUND',
      );
    });
  });
}
