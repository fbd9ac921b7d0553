// Organizations (issue 28, contract section 9): the role matrix over every route of the OpenAPI document,
// invitations (single use, 7 days, the invited email only), members (role changes, removal ending sessions at
// once on both instances, the last owner kept), requireMfa, approvals by several members (executed once under a
// race of approvals on two instances) and the audit log.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { ROLES, type Role, rolesAllowed } from '../src/domain/organizations/roles.ts';
import { ROUTE_TABLE } from '../src/routes/index.ts';
import type { RunningServer } from '../src/server.ts';
import { TABLES } from '../src/store/snapshot.ts';
import {
  type Agent,
  agentWithKey,
  createPolicy,
  decisionUrl,
  EXTERNAL,
  holdPayment,
  tool,
  toolOk,
} from './support/agent.ts';
import { type Harness, secondInstance, startHarness, storeTargets } from './support/harness.ts';
import {
  addMember as addMemberTo,
  as,
  call,
  expectError,
  type Reply,
  type TestUser,
} from './support/http.ts';
import { arbitraryOf } from './support/schema-arbitrary.ts';

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document and audit entries are JSON
type Json = any;

const PASSWORD = 'correct horse battery';
const targets = await storeTargets();

/** Every row of every table: what "changes nothing" is checked against. */
async function everything(h: Harness): Promise<string> {
  const dump: Record<string, unknown[]> = {};
  for (const table of TABLES) {
    dump[table] = await h.services.store.db.selectFrom(table).selectAll().execute();
  }
  return JSON.stringify(dump, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
}

async function invite(owner: TestUser, email: string, role: Role): Promise<Reply> {
  return owner.api.post('/api/v1/members/invitations', { email, role });
}

let emails = 0;
function newEmail(label: string): string {
  emails += 1;
  return `${label}${emails}.${process.pid}@example.test`;
}

async function addMember(h: Harness, owner: TestUser, role: Role, label: string = role): Promise<TestUser> {
  return (await addMemberTo(h.app, owner, role, label)).member;
}

async function login(h: Harness, member: TestUser): Promise<string> {
  const reply = await call(h.app, 'POST', '/api/v1/auth/login', { email: member.email, password: PASSWORD });
  assert.equal(reply.status, 200, reply.raw);
  return reply.body.data.token;
}

for (const target of targets) {
  describe(`organizations on ${target.name}`, { skip: target.skip }, () => {
    let h: Harness;
    let second: RunningServer;
    before(async () => {
      h = await startHarness(target.name, 'orgs', { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
      second = await secondInstance(h);
    });
    after(async () => {
      await second?.close();
      await h?.close();
    });

    test('the role matrix: every session route of the document × every role', async () => {
      const agent = await agentWithKey(h, { master: '1000', fund: '100' });
      const owner = agent.user;
      const members: Record<Role, TestUser> = {
        owner,
        admin: await addMember(h, owner, 'admin'),
        approver: await addMember(h, owner, 'approver'),
        viewer: await addMember(h, owner, 'viewer'),
      };
      const fixtures = await roleFixtures(h, agent, members);
      const doc = (await call(h.app, 'GET', '/api/v1/openapi.json')).body;
      const definitions = Object.entries(ROUTE_TABLE) as Array<
        [string, (typeof ROUTE_TABLE)[keyof typeof ROUTE_TABLE]]
      >;
      const byOperation = new Map(definitions.map(([id, route]) => [id, route]));
      const tokens = new Map<Role, string>();
      let checked = 0;
      for (const [path, methods] of Object.entries<Record<string, Json>>(doc.paths)) {
        for (const [method, op] of Object.entries<Json>(methods)) {
          const secured = (op.security ?? []).some((s: object) => 'userJwt' in s);
          const route = byOperation.get(op.operationId);
          if (!secured) {
            assert.equal(route?.role, undefined, `${op.operationId} has a role but no session`);
            continue;
          }
          assert.ok(route !== undefined, `${method} ${path}: no route named ${op.operationId}`);
          assert.ok(route.role !== undefined, `${op.operationId}: a session route without a role`);
          const allowed = rolesAllowed(route.role);
          assert.match(op.description ?? '', new RegExp(`Role: ${allowed.join(', ')}\\.`));
          const url = fillPath(path, fixtures);
          const body = bodyFor(op);
          for (const role of ROLES.filter((r) => !allowed.includes(r))) {
            const before = await everything(h);
            const token = tokens.get(role) ?? (await login(h, members[role]));
            tokens.set(role, token);
            const reply = await call(h.app, method.toUpperCase() as 'GET', url, body, { token });
            expectError(reply, 403, 'FORBIDDEN_ROLE');
            assert.equal(reply.body.error.requiredRole, route.role, `${op.operationId} × ${role}`);
            assert.equal(
              await everything(h),
              before,
              `${op.operationId} refused to ${role} changed the store`,
            );
            checked += 1;
          }
          for (const role of allowed) {
            const token = tokens.get(role) ?? (await login(h, members[role]));
            const unknownUrl = fillPath(path, UNKNOWN_IDS);
            const reply = await call(h.app, method.toUpperCase() as 'GET', unknownUrl, emptyBody(op), {
              token,
            });
            assert.ok(
              reply.status < 500 && reply.body?.error?.code !== 'FORBIDDEN_ROLE',
              `${op.operationId} × ${role}: ${reply.status} ${reply.raw.slice(0, 200)}`,
            );
            // A session route may end sessions (logout, end-others, password): the next request logs in again.
            if (path.startsWith('/api/v1/auth/')) tokens.clear();
            else tokens.set(role, token);
            checked += 1;
          }
        }
      }
      assert.ok(checked > 200, `only ${checked} checks`);
    });

    test('an invitation is single-use, for its email only, and expires after 7 days', async () => {
      const { user: owner } = await agentWithKey(h, { fund: '0' });
      const email = newEmail('inv');
      const invited = await invite(owner, email, 'viewer');
      assert.equal(invited.status, 201, invited.raw);
      const token = invited.body.data.token as string;
      assert.deepEqual(Object.keys(invited.body.data).sort(), [
        'createdAt',
        'email',
        'expiresAt',
        'id',
        'role',
        'token',
      ]);
      const listed = await owner.api.get('/api/v1/members/invitations');
      assert.equal(listed.body.data.items.length, 1);
      assert.ok(!listed.raw.includes(token), 'a listed invitation shows its token');
      const wrongEmail = await call(h.app, 'POST', '/api/v1/auth/signup', {
        email: newEmail('other'),
        password: PASSWORD,
        invitationToken: token,
      });
      expectError(wrongEmail, 400, 'VALIDATION_ERROR');
      const joined = await call(h.app, 'POST', '/api/v1/auth/signup', {
        email,
        password: PASSWORD,
        invitationToken: token,
      });
      assert.equal(joined.status, 201, joined.raw);
      const me = as(h.app, joined.body.data.token);
      // The new member sees the owner's wallet: one organization.
      const wallet = await me.get('/api/v1/wallet');
      assert.equal(wallet.body.data.id, (await owner.api.get('/api/v1/wallet')).body.data.id);
      const again = await call(h.app, 'POST', '/api/v1/auth/signup', {
        email: newEmail('again'),
        password: PASSWORD,
        invitationToken: token,
      });
      expectError(again, 400, 'VALIDATION_ERROR');

      const revokedEmail = newEmail('rev');
      const revoked = await invite(owner, revokedEmail, 'viewer');
      const gone = await owner.api.delete(`/api/v1/members/invitations/${revoked.body.data.id}`);
      assert.equal(gone.status, 200, gone.raw);
      const refused = await call(h.app, 'POST', '/api/v1/auth/signup', {
        email: revokedEmail,
        password: PASSWORD,
        invitationToken: revoked.body.data.token,
      });
      expectError(refused, 400, 'VALIDATION_ERROR');
      const later = newEmail('late');
      const late = await invite(owner, later, 'approver');
      h.clock.advanceMs(7 * 24 * 3600 * 1000 + 1000);
      const expired = await call(h.app, 'POST', '/api/v1/auth/signup', {
        email: later,
        password: PASSWORD,
        invitationToken: late.body.data.token,
      });
      expectError(expired, 400, 'VALIDATION_ERROR');
    });

    test('a removed member’s sessions die at once on both instances; the last owner stays', async () => {
      const { user: owner } = await agentWithKey(h, { fund: '0' });
      const admin = await addMember(h, owner, 'admin');
      const onSecond = as(second.app, admin.token);
      assert.equal((await onSecond.get('/api/v1/agent-wallets')).status, 200);
      const list = await owner.api.get('/api/v1/members');
      assert.deepEqual(
        list.body.data.items.map((m: { email: string; role: string; mfa: boolean }) => [
          m.email,
          m.role,
          m.mfa,
        ]),
        [
          [owner.email, 'owner', false],
          [admin.email, 'admin', false],
        ],
      );
      expectError(
        await owner.api.patch(`/api/v1/members/${owner.id}`, { role: 'admin' }),
        409,
        'INVALID_STATE',
      );
      expectError(await owner.api.delete(`/api/v1/members/${owner.id}`), 409, 'INVALID_STATE');
      // An admin cannot manage members.
      expectError(await admin.api.delete(`/api/v1/members/${owner.id}`), 403, 'FORBIDDEN_ROLE');
      const promoted = await owner.api.patch(`/api/v1/members/${admin.id}`, { role: 'owner' });
      assert.equal(promoted.body.data.role, 'owner');
      // Two owners now: the first may step down, and the second is then the last.
      assert.equal((await owner.api.patch(`/api/v1/members/${owner.id}`, { role: 'viewer' })).status, 200);
      expectError(
        await admin.api.patch(`/api/v1/members/${admin.id}`, { role: 'viewer' }),
        409,
        'INVALID_STATE',
      );
      expectError(await owner.api.get('/api/v1/members/invitations'), 403, 'FORBIDDEN_ROLE');
      const removed = await admin.api.delete(`/api/v1/members/${owner.id}`);
      assert.equal(removed.status, 200, removed.raw);
      expectError(await owner.api.get('/api/v1/wallet'), 401, 'UNAUTHORIZED');
      expectError(await as(second.app, owner.token).get('/api/v1/wallet'), 401, 'UNAUTHORIZED');
      const relogin = await call(h.app, 'POST', '/api/v1/auth/login', {
        email: owner.email,
        password: PASSWORD,
      });
      expectError(relogin, 401, 'UNAUTHORIZED');
      assert.equal((await onSecond.get('/api/v1/wallet')).status, 200);
    });

    test('two owners demoting each other at once leave one owner', async () => {
      const { user: owner } = await agentWithKey(h, { fund: '0' });
      const other = await addMember(h, owner, 'owner', 'coowner');
      const [a, b] = await Promise.all([
        owner.api.patch(`/api/v1/members/${other.id}`, { role: 'viewer' }),
        as(second.app, other.token).patch(`/api/v1/members/${owner.id}`, { role: 'viewer' }),
      ]);
      // The loser is refused either under the organization's lock (409: it would leave no owner) or, when the winner
      // committed before the loser's request was even authorised, by its own new role (403 FORBIDDEN_ROLE).
      const [won, lost] = [a.status, b.status].sort();
      assert.equal(won, 200);
      assert.ok(lost === 409 || lost === 403, `the other demotion answered ${lost}`);
      const owners = (
        await call(h.app, 'GET', '/api/v1/members', undefined, {
          token: a.status === 200 ? owner.token : other.token,
        })
      ).body.data.items.filter((m: { role: string }) => m.role === 'owner');
      assert.equal(owners.length, 1);
    });

    test('requireMfa: a member without a second factor can only enrol one', async () => {
      const { user: owner } = await agentWithKey(h, { fund: '0' });
      const viewer = await addMember(h, owner, 'viewer');
      const set = await owner.api.patch('/api/v1/organization', { requireMfa: true });
      assert.equal(set.status, 200, set.raw);
      assert.equal(set.body.data.requireMfa, true);
      assert.equal(set.body.data.role, 'owner');
      assert.equal((await viewer.api.get('/api/v1/organization')).body.data.role, 'viewer');
      expectError(await viewer.api.get('/api/v1/agent-wallets'), 403, 'MFA_ENROLLMENT_REQUIRED');
      expectError(await owner.api.get('/api/v1/agent-wallets'), 403, 'MFA_ENROLLMENT_REQUIRED');
      assert.equal((await viewer.api.get('/api/v1/auth/mfa')).status, 200);
      assert.equal((await viewer.api.post('/api/v1/auth/mfa/totp')).status, 200);
      // The owner turns it off again through the enrolment-only door? No: settings are not an enrolment route.
      expectError(
        await owner.api.patch('/api/v1/organization', { requireMfa: false }),
        403,
        'MFA_ENROLLMENT_REQUIRED',
      );
    });

    test('require_approvals: distinct members, one reject rejects, executed once at the count', async () => {
      const agent = await agentWithKey(h, { master: '1000', fund: '100' });
      const owner = agent.user;
      const approver = await addMember(h, owner, 'approver');
      const viewer = await addMember(h, owner, 'viewer');
      await createPolicy(owner, agent.walletId, 'require_approvals', { amount: '5', approvers: 2 });
      const paid = toolOk(
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '10' }),
        'send_payment',
      );
      assert.equal(paid.status, 'pending');
      const url = decisionUrl(agent.walletId, paid.txId, 'approve');
      const first = await owner.api.post(url);
      assert.equal(first.status, 200, first.raw);
      assert.equal(first.body.data.status, 'pending');
      assert.equal(first.body.data.approvalsRequired, 2);
      assert.deepEqual(
        first.body.data.approvals.map((a: { email: string }) => a.email),
        [owner.email],
      );
      expectError(await owner.api.post(url), 409, 'INVALID_STATE');
      expectError(await viewer.api.post(url), 403, 'FORBIDDEN_ROLE');
      const second = await approver.api.post(url);
      assert.equal(second.body.data.status, 'completed', second.raw);
      assert.deepEqual(
        second.body.data.approvals.map((a: { email: string }) => a.email),
        [owner.email, approver.email],
      );
      const got = await owner.api.get(`/api/v1/agent-wallets/${agent.walletId}/transactions/${paid.txId}`);
      assert.equal(got.body.data.approvals.length, 2);

      const rejected = toolOk(
        await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '6' }),
        'send_payment',
      );
      await owner.api.post(decisionUrl(agent.walletId, rejected.txId, 'approve'));
      const no = await approver.api.post(decisionUrl(agent.walletId, rejected.txId, 'reject'), {
        reason: 'no',
      });
      assert.equal(no.body.data.status, 'rejected', no.raw);
      const balance = await owner.api.get(`/api/v1/agent-wallets/${agent.walletId}`);
      assert.equal(balance.body.data.balance, '90.000000');
      assert.equal(balance.body.data.heldBalance, '0.000000');
    });

    test('a race of approvals from five members on two instances executes the payment once', async () => {
      const agent = await agentWithKey(h, { master: '1000', fund: '100' });
      const owner = agent.user;
      const others = await Promise.all([
        addMember(h, owner, 'admin', 'r-admin'),
        addMember(h, owner, 'approver', 'r-a1'),
        addMember(h, owner, 'approver', 'r-a2'),
        addMember(h, owner, 'owner', 'r-o2'),
      ]);
      await createPolicy(owner, agent.walletId, 'require_approvals', { amount: '1', approvers: 3 });
      for (let round = 0; round < 3; round += 1) {
        const txId = await holdPaymentAbove(h, agent);
        const url = decisionUrl(agent.walletId, txId, 'approve');
        const replies = await Promise.all(
          [owner, ...others].map((m, i) =>
            call(i % 2 === 0 ? h.app : second.app, 'POST', url, undefined, { token: m.token }),
          ),
        );
        const statuses = replies.map((r) => (r.status === 200 ? r.body.data.status : r.body.error.code));
        assert.equal(statuses.filter((s) => s === 'completed').length, 1, statuses.join());
        assert.equal(statuses.filter((s) => s === 'pending').length, 2, statuses.join());
        assert.equal(statuses.filter((s) => s === 'INVALID_STATE').length, 2, statuses.join());
        const approvals = await h.services.store.db
          .selectFrom('transaction_approvals')
          .select('member_id')
          .where('transaction_id', '=', txId)
          .execute();
        assert.equal(approvals.length, 3);
        const outs = await h.services.store.db
          .selectFrom('ledger_transactions')
          .select('id')
          .where('reference_id', '=', txId)
          .where('kind', 'in', ['payment_external', 'payment_internal'])
          .execute();
        assert.equal(outs.length, 1, 'the payment moved its money once');
      }
      const wallet = await owner.api.get(`/api/v1/agent-wallets/${agent.walletId}`);
      assert.equal(wallet.body.data.balance, '94.000000');
    });

    test('the audit log keeps no secret an answer showed once', async () => {
      const { user: owner, walletId } = await agentWithKey(h, { fund: '0' });
      const hook = await owner.api.post('/api/v1/webhooks', { url: 'http://127.0.0.1:9/hook' });
      const rotated = await owner.api.post(`/api/v1/webhooks/${hook.body.data.id}/rotate-secret`, {});
      const totp = await owner.api.post('/api/v1/auth/mfa/totp');
      const key = await owner.api.post(`/api/v1/agent-wallets/${walletId}/keys`, { label: 'audited key' });
      const invited = await invite(owner, newEmail('secret'), 'viewer');
      const secrets = [
        hook.body.data.secret,
        rotated.body.data.secret,
        totp.body.data.secret,
        key.body.data.key,
        invited.body.data.token,
      ];
      assert.ok(
        secrets.every((secret) => typeof secret === 'string' && secret.length > 10),
        JSON.stringify(secrets),
      );
      const log = await owner.api.get('/api/v1/audit?limit=100');
      assert.ok(log.body.data.items.length >= 5);
      for (const secret of secrets) assert.ok(!log.raw.includes(secret), 'the audit log shows a secret');
      const rows = await h.services.store.db
        .selectFrom('audit_events')
        .select(['before_json', 'after_json'])
        .execute();
      const stored = JSON.stringify(rows);
      for (const secret of secrets) assert.ok(!stored.includes(secret), 'the audit table holds a secret');
    });

    test('a member’s security event reaches the organization, naming the member', async () => {
      const { user: owner } = await agentWithKey(h, { fund: '0' });
      const hook = await owner.api.post('/api/v1/webhooks', {
        url: 'http://127.0.0.1:9/hook',
        events: ['security.password_changed'],
      });
      assert.equal(hook.status, 201, hook.raw);
      const admin = await addMember(h, owner, 'admin');
      const changed = await admin.api.post('/api/v1/auth/password', {
        currentPassword: PASSWORD,
        newPassword: 'another long enough password',
      });
      assert.equal(changed.status, 200, changed.raw);
      const events = await h.services.store.db
        .selectFrom('webhook_events')
        .select(['user_id', 'data_json'])
        .where('type', '=', 'security.password_changed')
        .execute();
      const mine = events.filter((e) => e.user_id === owner.id).map((e) => JSON.parse(e.data_json));
      assert.equal(mine.length, 1);
      assert.deepEqual(mine[0].member, { id: admin.id, email: admin.email });
      // The member's own list still shows it; the owner's does not (it is the member's guard).
      const relogin = await call(h.app, 'POST', '/api/v1/auth/login', {
        email: admin.email,
        password: 'another long enough password',
      });
      const own = await as(h.app, relogin.body.data.token).get('/api/v1/auth/security-events');
      assert.equal(own.body.data.items.length, 1);
    });

    test('the audit log: members by email, agents by key label, filters, newest first', async () => {
      const agent = await agentWithKey(h, { master: '1000', fund: '100' });
      const owner = agent.user;
      const admin = await addMember(h, owner, 'admin');
      const created = await admin.api.post('/api/v1/agent-wallets', { label: 'audited' });
      assert.equal(created.status, 201);
      toolOk(await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '1' }), 'send_payment');
      const log = await owner.api.get('/api/v1/audit?limit=100');
      assert.equal(log.status, 200, log.raw);
      const items = log.body.data.items as Array<Record<string, Json>>;
      const byAdmin = items.find((e) => e.action === 'createAgentWallet');
      assert.ok(byAdmin, log.raw);
      assert.deepEqual(byAdmin.actor, { type: 'member', id: admin.id, label: admin.email });
      assert.equal(byAdmin.target, created.body.data.id);
      const keyCreated = items.find((e) => e.action === 'createKey');
      assert.ok(keyCreated, 'the key creation is logged');
      assert.equal(keyCreated.after.key, undefined, 'the audit log shows an API key');
      assert.ok(!log.raw.includes(agent.key), 'the audit log shows an API key');
      const payment = items.find((e) => e.actor.type === 'agent');
      assert.deepEqual(payment?.actor, { type: 'agent', id: agent.keyId, label: 'agent key' });
      assert.equal(payment?.action, 'transaction.completed');
      const times = items.map((e) => e.at);
      assert.deepEqual(times, [...times].sort().reverse(), 'newest first');
      const onlyAdmin = await owner.api.get(`/api/v1/audit?actor=${admin.id}`);
      assert.ok(onlyAdmin.body.data.items.length >= 1);
      assert.ok(onlyAdmin.body.data.items.every((e: { actor: { id: string } }) => e.actor.id === admin.id));
      const onlyWallet = await owner.api.get(`/api/v1/audit?walletId=${agent.walletId}`);
      assert.ok(onlyWallet.body.data.items.every((e: { walletId: string }) => e.walletId === agent.walletId));
      const future = await owner.api.get('/api/v1/audit?from=2100-01-01T00:00:00Z');
      assert.equal(future.body.data.total, 0);
      // Another organization sees none of it.
      const stranger = await agentWithKey(h, { fund: '0' });
      const theirs = await stranger.user.api.get('/api/v1/audit?limit=100');
      assert.ok(!theirs.raw.includes(admin.email));
    });
  });
}

async function holdPaymentAbove(h: Harness, agent: Agent): Promise<string> {
  const paid = toolOk(
    await tool(h, agent.key, 'send_payment', { toAddress: EXTERNAL, amount: '2' }),
    'send_payment',
  );
  assert.equal(paid.status, 'pending');
  return paid.txId;
}

/** Real resources of the organization, for the refused requests of the matrix to aim at. */
async function roleFixtures(h: Harness, agent: Agent, members: Record<Role, TestUser>) {
  const owner = agent.user;
  const policy = await createPolicy(owner, agent.walletId, 'spend_cap_per_tx', { limit: '50' });
  const heldTx = await holdPayment(h, agent, '1');
  const hook = await owner.api.post('/api/v1/webhooks', { url: 'https://127.0.0.1:9/hook' });
  assert.equal(hook.status, 201, hook.raw);
  const address = await owner.api.post('/api/v1/wallet/withdrawal-addresses', {
    address: EXTERNAL,
    label: 'cold',
  });
  assert.equal(address.status, 201, address.raw);
  const invitation = await invite(owner, newEmail('pending'), 'viewer');
  const sessions = await owner.api.get('/api/v1/auth/sessions');
  return {
    walletId: agent.walletId,
    keyId: agent.keyId,
    policyId: policy.id as string,
    transactionId: heldTx,
    deliveryId: 'dlv_unknown',
    '/webhooks/': hook.body.data.id as string,
    '/members/invitations/': invitation.body.data.id as string,
    '/members/': members.viewer.id,
    '/auth/sessions/': sessions.body.data.items[0].id as string,
    '/wallet/withdrawal-addresses/': address.body.data.id as string,
    '/wallet/withdrawals/': 'tx_unknown',
    '/auth/passkeys/': 'pky_unknown',
  } as Record<string, string>;
}

const UNKNOWN_IDS: Record<string, string> = new Proxy({}, { get: () => 'zz_unknown' });

/** The path with its parameters filled: by name, and `{id}` by the collection before it. */
function fillPath(path: string, ids: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_m, name: string, offset: number) => {
    if (name !== 'id') return ids[name] ?? 'zz_unknown';
    const before = path.slice(0, offset);
    const collection = Object.keys(ids)
      .filter((k) => k.startsWith('/') && before.endsWith(k))
      .sort((a, b) => b.length - a.length)[0];
    return collection === undefined ? 'zz_unknown' : ids[collection]!;
  });
}

/** A body the document calls valid (refusal must come before the body matters, and change nothing). */
function bodyFor(op: Json): unknown {
  const schema = op.requestBody?.content?.['application/json']?.schema;
  if (schema === undefined) return undefined;
  return fc.sample(arbitraryOf(schema), { numRuns: 1, seed: 28 })[0];
}

/** An allowed role's request: no fields, so it changes nothing that matters to the rest of the matrix. */
function emptyBody(op: Json): unknown {
  return op.requestBody === undefined ? undefined : {};
}
