// Upgrading in place: a database written by the previous release (the main before the newest migration was
// added) starts on this one with every balance, transaction, key, policy and session intact, and the ledger
// verifies. The previous release's server is taken from git history and run as a process, exactly as a
// self-hoster's old install would have written the data; then this release's server opens the same database.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { storeTargets } from './support/harness.ts';
import { startServiceProcess } from './support/processes.ts';
import { request } from './support/service-http.ts';
import { POSTGRES_URL, uniqueName } from './support/services.ts';

const REPO = resolve(import.meta.dirname, '../../..');
const MIGRATIONS = 'packages/server/src/store/migrations';
const CLI = resolve(import.meta.dirname, '../bin/agent-wallet.js');
const LIMITS = JSON.stringify({ default: 1_000_000, login: 1_000_000, signup: 1_000_000 });
const OUTSIDE = `0x${'cd'.repeat(20)}`;

/** The commit before the newest migration was added (HEAD while that migration is not committed yet). */
function previousRelease(): string | { skip: string } {
  const git = (...args: string[]) =>
    spawnSync('git', ['-C', REPO, ...args], { encoding: 'utf8' }).stdout?.trim() ?? '';
  if (git('rev-parse', '--is-inside-work-tree') !== 'true') return { skip: 'not a git checkout' };
  const newest = readdirSync(join(REPO, MIGRATIONS)).sort().at(-1)!;
  const added = git('log', '--diff-filter=A', '--format=%H', '-1', '--', `${MIGRATIONS}/${newest}`);
  const base = added === '' ? git('rev-parse', 'HEAD') : git('rev-parse', `${added}^`);
  if (base === '' || git('cat-file', '-t', base) !== 'commit')
    return { skip: 'the git history is too shallow' };
  return base;
}

/**
 * The previous release's server, extracted inside the repository so that it resolves the same node_modules —
 * with the SDK's sources beside it, which the server imports one module of (the calendar periods).
 * Returns its CLI path.
 */
function extractRelease(commit: string, into: string): string {
  mkdirSync(into, { recursive: true });
  const archive = execFileSync(
    'git',
    ['-C', REPO, 'archive', commit, 'packages/server', 'packages/sdk/src'],
    {
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  execFileSync('tar', ['-x', '-C', into], { input: archive });
  return join(into, 'packages/server/bin/agent-wallet.js');
}

interface Written {
  token: string;
  agentKey: string;
  walletId: string;
  /** A member of the old release who made a key of their own (migration 0021 names them its maker). */
  admin: { id: string; keyId: string; key: string };
  snapshot: unknown;
}

/** What a user of the previous release had: money moved every way, a held payment, policies, keys, a session. */
async function writeHistory(base: string): Promise<Written> {
  const signup = await request(base, 'POST', '/api/v1/auth/signup', undefined, {
    email: 'upgrade@example.test',
    password: 'a long enough password',
  });
  const token = signup.body.data.token;
  await request(base, 'POST', '/api/v1/wallet/sandbox/deposit', token, { amount: '1000' });
  const walletId = (await request(base, 'POST', '/api/v1/agent-wallets', token, { label: 'old' })).body.data
    .id;
  const other = (await request(base, 'POST', '/api/v1/agent-wallets', token, { label: 'other' })).body.data;
  await request(base, 'POST', `/api/v1/agent-wallets/${walletId}/fund`, token, { amount: '500' });
  await request(base, 'POST', `/api/v1/agent-wallets/${walletId}/withdraw`, token, { amount: '20' });
  for (const [type, params] of [
    ['spend_cap_total', { limit: '400' }],
    ['spend_cap_daily', { limit: '300' }],
    ['require_approval_above', { amount: '50' }],
  ] as const) {
    const made = await request(base, 'POST', `/api/v1/agent-wallets/${walletId}/policies`, token, {
      type,
      params,
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
  }
  const agentKey = (
    await request(base, 'POST', `/api/v1/agent-wallets/${walletId}/keys`, token, { label: 'k' })
  ).body.data.key;
  const pay = (toAddress: string, amount: string) =>
    request(base, 'POST', '/mcp/v1/tools/send_payment', agentKey, { params: { toAddress, amount } });
  assert.equal((await pay(OUTSIDE, '10')).body.data.status, 'completed');
  assert.equal((await pay(other.address, '15')).body.data.status, 'completed');
  assert.equal((await pay(OUTSIDE, '60')).body.data.status, 'pending');
  const held = await pay(OUTSIDE, '70');
  await request(
    base,
    'POST',
    `/api/v1/agent-wallets/${walletId}/transactions/${held.body.data.txId}/reject`,
    token,
    {
      reason: 'no',
    },
  );
  assert.equal((await pay(OUTSIDE, '500')).status, 422, 'over the caps: denied');
  // An endpoint no event goes to (nothing listens on port 9): it must survive migration 0013 and rotate.
  const hook = await request(base, 'POST', '/api/v1/webhooks', token, {
    url: 'http://127.0.0.1:9/hooks',
    events: ['wallet.unfrozen'],
  });
  assert.equal(hook.status, 201, JSON.stringify(hook.body));
  const admin = await adminWithKey(base, token, other.id);
  return { token, agentKey, walletId, admin, snapshot: await snapshot(base, token, agentKey, walletId) };
}

/** An admin invited into the organization, who makes a key of the other wallet. */
async function adminWithKey(base: string, token: string, walletId: string): Promise<Written['admin']> {
  const email = 'upgrade-admin@example.test';
  const invited = await request(base, 'POST', '/api/v1/members/invitations', token, { email, role: 'admin' });
  assert.equal(invited.status, 201, JSON.stringify(invited.body));
  const joined = await request(base, 'POST', '/api/v1/auth/signup', undefined, {
    email,
    password: 'a long enough password',
    invitationToken: invited.body.data.token,
  });
  assert.equal(joined.status, 201, JSON.stringify(joined.body));
  const made = await request(base, 'POST', `/api/v1/agent-wallets/${walletId}/keys`, joined.body.data.token, {
    label: "the admin's",
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  return { id: joined.body.data.user.id, keyId: made.body.data.id, key: made.body.data.key };
}

async function snapshot(base: string, token: string, agentKey: string, walletId: string) {
  const read = async (path: string, as = token) => (await request(base, 'GET', path, as)).body;
  return {
    master: await read('/api/v1/wallet'),
    wallets: await read('/api/v1/agent-wallets?limit=100'),
    wallet: await read(`/api/v1/agent-wallets/${walletId}`),
    transactions: await read(`/api/v1/agent-wallets/${walletId}/transactions?limit=100`),
    policies: await read(`/api/v1/agent-wallets/${walletId}/policies`),
    // lastUsedAt moves with every call the snapshot itself makes with the key.
    keys: withoutLastUse(await read(`/api/v1/agent-wallets/${walletId}/keys`)),
    deposits: await read('/api/v1/wallet/deposits'),
    webhooks: await read('/api/v1/webhooks'),
    audit: await read('/api/v1/audit?limit=100'),
    me: await read('/api/v1/auth/me'),
    balance: (await request(base, 'POST', '/mcp/v1/tools/check_balance', agentKey, {})).body,
  };
}

/**
 * Everything the previous release answered is answered the same now; a field the new release adds to a view
 * (e.g. a transaction's `resource`) is not a change to existing data.
 */
function assertKept(now: unknown, before: unknown, path = '$'): void {
  if (before === null || typeof before !== 'object') {
    assert.deepEqual(now, before, `${path} changed`);
    return;
  }
  assert.equal(typeof now, 'object', `${path} is no longer an object`);
  assert.ok(now !== null, `${path} is null now`);
  if (Array.isArray(before)) {
    assert.ok(Array.isArray(now) && now.length === before.length, `${path} has another length`);
  }
  for (const [name, value] of Object.entries(before)) {
    assertKept((now as Record<string, unknown>)[name], value, `${path}.${name}`);
  }
}

// biome-ignore lint/suspicious/noExplicitAny: a key list as the wire shows it
function withoutLastUse(body: any) {
  for (const item of body.data.items) delete item.lastUsedAt;
  return body;
}

const release = previousRelease();
const skipAll =
  typeof release === 'string'
    ? false
    : process.env.CI === 'true'
      ? false
      : `${release.skip}; skipping the upgrade test (CI=true requires it)`;

for (const target of await storeTargets()) {
  describe(`upgrade from the previous release (${target.name})`, { skip: target.skip || skipAll }, () => {
    let root: string;
    let oldCli: string;
    before(() => {
      assert.equal(typeof release, 'string', 'CI=true needs the git history for the upgrade test');
      root = mkdtempSync(join(REPO, 'packages/server/.upgrade-'));
      oldCli = extractRelease(release as string, root);
    });
    after(() => rmSync(root, { recursive: true, force: true }));

    test('every balance, transaction, key, policy and session is intact, and the ledger verifies', async () => {
      const env: Record<string, string> = {
        DATA_DIR: mkdtempSync(join(tmpdir(), 'agent-wallet-upgrade-')),
        RATE_LIMITS: LIMITS,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        JWT_SECRET: 'upgrade-test-secret-upgrade-test-secret',
        ...(target.name === 'postgres'
          ? { DATABASE_URL: POSTGRES_URL, DATABASE_SCHEMA: uniqueName('upgrade'), DB_POOL_MAX: '5' }
          : {}),
      };
      const old = await startServiceProcess(env, oldCli);
      let written: Written;
      try {
        written = await writeHistory(old.url);
      } finally {
        await old.stop();
      }
      const next = await startServiceProcess(env, CLI);
      try {
        const now = await snapshot(next.url, written.token, written.agentKey, written.walletId);
        assertKept(now, written.snapshot);
        // The upgraded database still takes payments, and the caps count what the old release spent.
        const pay = await request(next.url, 'POST', '/mcp/v1/tools/send_payment', written.agentKey, {
          params: { toAddress: OUTSIDE, amount: '5' },
        });
        assert.equal(pay.body.data.status, 'completed', JSON.stringify(pay.body));
        // Its daily window (kept since migration 0010, made on first use) counts the old release's payments:
        // 10 + 15 + 60 held + 5 of the 300 → one micro-unit past the 210 left is denied by the daily cap.
        const over = await request(next.url, 'POST', '/mcp/v1/tools/send_payment', written.agentKey, {
          params: { toAddress: OUTSIDE, amount: '210.000001' },
        });
        assert.equal(over.status, 422, JSON.stringify(over.body));
        assert.deepEqual(
          over.body.error.violations.map((v: { policyType: string }) => v.policyType),
          ['spend_cap_daily'],
        );
        // Custody (migration 0011): the old session is listed as this one, the user has no factor, and what
        // needs step-up only with a factor (a new key) still works without one.
        const sessions = await request(next.url, 'GET', '/api/v1/auth/sessions', written.token);
        assert.equal(sessions.status, 200, JSON.stringify(sessions.body));
        assert.deepEqual(
          sessions.body.data.items.map((s: { current: boolean }) => s.current),
          [true],
        );
        const factors = await request(next.url, 'GET', '/api/v1/auth/mfa', written.token);
        assert.deepEqual(factors.body.data, { totp: false, passkeys: 0, recoveryCodesLeft: 0 });
        const key = await request(
          next.url,
          'POST',
          `/api/v1/agent-wallets/${written.walletId}/keys`,
          written.token,
          {
            label: 'after the upgrade',
          },
        );
        assert.equal(key.status, 201, JSON.stringify(key.body));
        // The old release's webhook endpoint takes a secret rotation (columns of migration 0013).
        const [hook] = (await request(next.url, 'GET', '/api/v1/webhooks', written.token)).body.data.items;
        const rotated = await request(
          next.url,
          'POST',
          `/api/v1/webhooks/${hook.id}/rotate-secret`,
          written.token,
          { overlapSeconds: 60 },
        );
        assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
        assert.match(rotated.body.data.secret, /^whsec_/);
        // Organizations (migration 0014): the old user owns its organization (with the admin it invited), and
        // its held payment is approved by one member as before.
        const members = await request(next.url, 'GET', '/api/v1/members', written.token);
        assert.deepEqual(
          members.body.data.items.map((m: { email: string; role: string }) => [m.email, m.role]),
          [
            ['upgrade@example.test', 'owner'],
            ['upgrade-admin@example.test', 'admin'],
          ],
        );
        const org = await request(next.url, 'GET', '/api/v1/organization', written.token);
        assert.equal(org.body.data.requireMfa, false);
        const pending = await request(
          next.url,
          'GET',
          `/api/v1/agent-wallets/${written.walletId}/transactions/pending`,
          written.token,
        );
        const [held] = pending.body.data.transactions;
        assert.equal(held.approvalsRequired, 1);
        const approved = await request(
          next.url,
          'POST',
          `/api/v1/agent-wallets/${written.walletId}/transactions/${held.id}/approve`,
          written.token,
        );
        assert.equal(approved.body.data.status, 'completed', JSON.stringify(approved.body));
        assert.equal(approved.body.data.approvals.length, 1);
        // Key makers (migration 0021): removing the old release's admin ends the key they made (the audit log
        // named them), not the founder's key made before anyone joined.
        const removed = await request(
          next.url,
          'DELETE',
          `/api/v1/members/${written.admin.id}`,
          written.token,
        );
        assert.equal(removed.status, 200, JSON.stringify(removed.body));
        assert.deepEqual(
          removed.body.data.revokedKeys.map((k: { id: string }) => k.id),
          [written.admin.keyId],
        );
        const refused = await request(next.url, 'POST', '/mcp/v1/tools/check_balance', written.admin.key, {});
        assert.equal(refused.status, 401, JSON.stringify(refused.body));
        const kept = await request(next.url, 'POST', '/mcp/v1/tools/check_balance', written.agentKey, {});
        assert.equal(kept.status, 200, JSON.stringify(kept.body));
      } finally {
        await next.stop();
      }
      const verify = spawnSync(process.execPath, [CLI, 'verify-ledger'], {
        env: { ...process.env, ...env },
        encoding: 'utf8',
      });
      assert.equal(verify.status, 0, verify.stdout + verify.stderr);
      // The audit log written before the chain existed is chained on upgrade, and lines written since follow.
      const audit = spawnSync(process.execPath, [CLI, 'verify-audit'], {
        env: { ...process.env, ...env },
        encoding: 'utf8',
      });
      assert.equal(audit.status, 0, audit.stdout + audit.stderr);
      assert.match(audit.stdout, /audit log OK: 1 organizations, [1-9][0-9]* lines/);
    });
  });
}
