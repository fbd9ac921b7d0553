// No request scans the transactions, entries, accounts or wallets tables (issue 11: a payment's cost must not
// grow with history, nor with the number of wallets; nor a wallet's, a key's or a policy's creation with either:
// their lock of the owning row once made SQLite check every referring table by full scan).
// Migration 0009 left completed payments out of the status indexes, which the queries reach only by repeating
// the partial indexes' predicates literally (store/partial-index.ts); a query that loses its predicate falls
// back to reading a wallet's — or everyone's — whole history, and works, slowly. So this test records every SQL
// text the service prepares while it serves the requests that read by status (pending lists, filtered history,
// a fund's pending count, the wallet list and its approvals badge, expiry, windows, check_balance) and asks
// SQLite for each one's plan: none may scan, and one run with an open status as a parameter (pending, failed…)
// must go through a partial index (checked by mutation: without the predicate in the history list or in a
// fund's pending count, it fails).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { addPolicy, createKey, fund, OUTSIDE_ADDRESS, tool } from './support/agent.helpers.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { fundedUser } from './support/http.ts';

const seen = new Set<string>();
let serving = false;
/** SQL text → the statuses other than completed it was run with as a parameter. */
const openStatusesBound = new Map<string, Set<string>>();
const OPEN_STATUSES = new Set(['pending', 'processing', 'rejected', 'expired', 'failed']);
const prepare = SqliteDatabase.prototype.prepare;

/** Records which open statuses each statement is run with (Kysely passes its parameters as one array). */
function recordingRuns(text: string, statement: ReturnType<typeof prepare>) {
  for (const method of ['all', 'get', 'iterate', 'run'] as const) {
    const run = statement[method].bind(statement) as (...args: unknown[]) => unknown;
    Object.defineProperty(statement, method, {
      value: (...args: unknown[]) => {
        for (const value of args.flat()) {
          if (typeof value !== 'string' || !OPEN_STATUSES.has(value)) continue;
          openStatusesBound.set(text, (openStatusesBound.get(text) ?? new Set()).add(value));
        }
        return run(...args);
      },
    });
  }
  return statement;
}

/** `SCAN transactions` and the like: a step over every row of the table (a SEARCH uses an index). */
const FULL_SCAN = /\bSCAN (transactions|entries|accounts|wallets)\b(?! USING)/;
/** Migration 0009's partial indexes of payments that are not completed. */
const PARTIAL_INDEX = /INDEX transactions_(wallet_open|pending_expiry|user_pending)_idx/;

describe('query plans (SQLite)', () => {
  let h: Harness;
  before(async () => {
    SqliteDatabase.prototype.prepare = function (this: SqliteDatabase.Database, text: string) {
      if (serving) seen.add(text);
      return recordingRuns(text, prepare.call(this, text) as ReturnType<typeof prepare>);
    } as typeof prepare;
    h = await startHarness('sqlite', 'query_plans');
    serving = true; // the migrations' backfills read whole tables by design; requests may not
  });
  after(async () => {
    SqliteDatabase.prototype.prepare = prepare;
    await h.close();
  });

  test('the requests that read payments by status or window reach them through an index', async () => {
    const { user, walletId } = await fundedUser(h.app, '1000');
    await fund(user, walletId, '100');
    await addPolicy(user, walletId, 'require_approval_above', { amount: '5' });
    await addPolicy(user, walletId, 'spend_cap_daily', { limit: '500' });
    await addPolicy(user, walletId, 'tx_count_cap', { count: 100, window: '1h' });
    const key = await createKey(user, walletId);
    assert.equal(
      (await tool(h.app, key, 'send_payment', { toAddress: OUTSIDE_ADDRESS, amount: '1' })).status,
      200,
    );
    assert.equal(
      (await tool(h.app, key, 'send_payment', { toAddress: OUTSIDE_ADDRESS, amount: '9' })).status,
      200,
    );
    const other = await user.api.post('/api/v1/agent-wallets', { label: 'recipient' });
    const internal = { toAddress: other.body.data.address, amount: '1' };
    assert.equal((await tool(h.app, key, 'send_payment', internal)).status, 200);
    for (const status of ['pending', 'completed', 'rejected']) {
      assert.equal((await tool(h.app, key, 'get_tx_history', { status })).status, 200);
    }
    assert.equal((await user.api.get(`/api/v1/agent-wallets/${walletId}/transactions/pending`)).status, 200);
    assert.equal(
      (await user.api.get(`/api/v1/agent-wallets/${walletId}/transactions?status=failed`)).status,
      200,
    );
    assert.equal((await user.api.get('/api/v1/agent-wallets')).status, 200);
    assert.equal((await tool(h.app, key, 'check_balance')).status, 200);
    await fund(user, walletId, '1');
    await h.services.approvals.expireDue();

    const reading = [...seen].filter(
      (text) =>
        /^\s*(select|update|delete|with)\b/i.test(text) &&
        /\b(transactions|entries|accounts|wallets)\b/.test(text),
    );
    assert.ok(reading.length >= 8, `only ${reading.length} statements recorded`);
    const inspector = new SqliteDatabase(join(h.dataDir, 'agent-wallet.sqlite'), { readonly: true });
    let filteredByOpenStatus = 0;
    try {
      for (const text of reading) {
        const parameters = Array.from(text.matchAll(/\?/g), () => null);
        const plan = inspector
          .prepare(`explain query plan ${text}`)
          .all(...parameters)
          .map((row) => (row as { detail: string }).detail)
          .join('; ');
        assert.doesNotMatch(plan, FULL_SCAN, `${text}\n→ ${plan}`);
        // A wallet's payments filtered to an open status come from the partial index of open payments, not
        // from a range over the wallet's whole history (which is no scan, and still grows with the wallet).
        if (/"status" = \?/.test(text) && openStatusesBound.has(text)) {
          assert.match(
            plan,
            PARTIAL_INDEX,
            `${text}\n(run with ${[...openStatusesBound.get(text)!]})\n→ ${plan}`,
          );
          filteredByOpenStatus += 1;
        }
      }
      assert.ok(
        filteredByOpenStatus >= 2,
        `only ${filteredByOpenStatus} statements filtered by an open status`,
      );
    } finally {
      inspector.close();
    }
  });
});
