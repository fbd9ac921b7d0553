// ManagementClient's organization calls against a real server: the organization (contract section 9), its
// members and invitations (a signup with the invitation's token joins), alerts (section 10) and the audit log.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  AgentWalletClient,
  AuthenticationError,
  ConflictError,
  ManagementClient,
  NotFoundError,
  PermissionError,
  ValidationError,
} from '../src/index.ts';
import type { AuditEntry } from '../src/types.ts';
import { newAgent, newOwner, PASSWORD, rejection, uniqueEmail } from './support/fixtures.ts';
import { startServer, type TestServer } from './support/server.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('ManagementClient: organization, members, invitations, alerts, audit', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server?.stop());

  test("organization.get shows the caller's role; update requires a second factor of every member", async () => {
    const { mgmt } = await newOwner(server.url, {}, '0');
    const organization = await mgmt.organization.get();
    assert.equal(organization.role, 'owner');
    assert.equal(organization.requireMfa, false);
    assert.ok(organization.id.length > 0);
    assert.deepEqual(await mgmt.organization.update({ requireMfa: false }), organization);

    const strict = await mgmt.organization.update({ requireMfa: true });
    assert.equal(strict.requireMfa, true);
    assert.equal(strict.id, organization.id);
    // An owner without a second factor can now only enrol one: reading the organization is still allowed.
    assert.equal((await mgmt.organization.get()).requireMfa, true);
    const refused = await rejection(() => mgmt.agentWallets.list());
    assert.ok(refused instanceof PermissionError, 'a person must act: its own class');
    assert.equal(refused.code, 'MFA_ENROLLMENT_REQUIRED');
    assert.equal(refused.status, 403);
  });

  test('members: invite (token shown once), signup with the token, list, change role, remove', async () => {
    const { mgmt: owner, email: ownerEmail } = await newOwner(server.url, {}, '0');
    const { user: ownerUser } = await owner.me();
    const email = uniqueEmail('member');
    const invitation = await owner.members.invitations.create({ email, role: 'viewer' });
    assert.match(invitation.token, /^inv_/);
    assert.equal(invitation.email, email);
    assert.equal(invitation.role, 'viewer');
    const expiresInMs = Date.parse(invitation.expiresAt) - Date.now();
    assert.ok(expiresInMs > 6.9 * DAY_MS && expiresInMs <= 7 * DAY_MS, invitation.expiresAt);
    const open = await owner.members.invitations.list();
    assert.deepEqual(
      open.items.map((i) => i.id),
      [invitation.id],
    );
    assert.equal('token' in (open.items[0] ?? {}), false, 'the token is never listed');

    const member = new ManagementClient({ baseUrl: server.url });
    const session = await member.signup({ email, password: PASSWORD, invitationToken: invitation.token });
    assert.equal(session.user.email, email);
    assert.equal(member.token, session.token);
    const memberId = session.user.id;
    const memberOrganization = await member.organization.get();
    assert.equal(memberOrganization.id, (await owner.organization.get()).id);
    assert.equal(memberOrganization.role, 'viewer');
    assert.deepEqual(
      (await owner.members.invitations.list()).items,
      [],
      'an accepted invitation is not open',
    );

    const members = await owner.members.list();
    assert.deepEqual(
      members.items.map((m) => [m.id, m.email, m.role, m.mfa]),
      [
        [ownerUser.id, ownerEmail, 'owner', false],
        [memberId, email, 'viewer', false],
      ],
    );
    assert.ok(Date.parse(members.items[1]?.joinedAt ?? '') > 0);
    assert.equal((await member.members.list()).items.length, 2, 'a viewer reads the members too');

    // A viewer may read the organization, not change it: 403 FORBIDDEN_ROLE naming the role needed.
    const forbidden = await rejection(() => member.organization.update({ requireMfa: true }));
    assert.ok(forbidden instanceof PermissionError);
    assert.equal(forbidden.code, 'FORBIDDEN_ROLE');
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.details.requiredRole, 'owner');

    const promoted = await owner.members.update(memberId, { role: 'admin' });
    assert.deepEqual([promoted.id, promoted.email, promoted.role], [memberId, email, 'admin']);
    assert.equal((await member.organization.get()).role, 'admin');
    const adminWallet = await member.agentWallets.create({ label: 'by an admin' });
    assert.equal(adminWallet.label, 'by an admin');
    const adminKey = await member.keys.create(adminWallet.id, { label: 'the admin’s key' });

    // The last owner can be neither demoted nor removed.
    const demotion = await rejection(() => owner.members.update(ownerUser.id, { role: 'admin' }));
    assert.ok(demotion instanceof ConflictError);
    assert.equal(demotion.code, 'INVALID_STATE');
    assert.equal(demotion.status, 409);
    assert.ok((await rejection(() => owner.members.remove(ownerUser.id))) instanceof ConflictError);

    // The keys a member made end with them, and the answer names them.
    assert.deepEqual(await owner.members.remove(memberId), {
      id: memberId,
      deleted: true,
      removed: true,
      revokedKeys: [{ id: adminKey.id, label: 'the admin’s key', walletId: adminWallet.id }],
      revokedOAuth: [],
      keptKeys: [],
      keptOAuth: [],
    });
    assert.deepEqual(
      (await owner.members.list()).items.map((m) => m.id),
      [ownerUser.id],
    );
    const ended = await rejection(() => member.me());
    assert.ok(ended instanceof AuthenticationError, "the removed member's session ended at once");
    const gone = await rejection(() => owner.members.remove(memberId));
    assert.ok(gone instanceof NotFoundError);
    assert.equal(gone.code, 'NOT_FOUND');
  });

  test('members.remove with keepKeys: the keys the member made keep working, listed as kept', async () => {
    const { mgmt: owner } = await newOwner(server.url, {}, '0');
    const wallet = await owner.agentWallets.create({ label: 'shared' });
    const email = uniqueEmail('keeper');
    const invitation = await owner.members.invitations.create({ email, role: 'admin' });
    const member = new ManagementClient({ baseUrl: server.url });
    const { user } = await member.signup({ email, password: PASSWORD, invitationToken: invitation.token });
    const made = await member.keys.create(wallet.id, { label: 'kept' });
    const removed = await owner.members.remove(user.id, { keepKeys: true });
    assert.deepEqual(removed.keptKeys, [{ id: made.id, label: 'kept', walletId: wallet.id }]);
    assert.deepEqual(removed.revokedKeys, []);
    const agent = new AgentWalletClient({ baseUrl: server.url, apiKey: made.key });
    assert.equal((await agent.checkBalance()).walletId, wallet.id);
  });

  test('invitations: list (newest first), revoke; a revoked token no longer joins', async () => {
    const { mgmt: owner, email: ownerEmail } = await newOwner(server.url, {}, '0');
    const first = await owner.members.invitations.create({ email: uniqueEmail('first'), role: 'approver' });
    const second = await owner.members.invitations.create({ email: uniqueEmail('second'), role: 'admin' });
    const open = await owner.members.invitations.list();
    assert.deepEqual(
      open.items.map((i) => [i.id, i.email, i.role]),
      [
        [second.id, second.email, 'admin'],
        [first.id, first.email, 'approver'],
      ],
    );

    assert.deepEqual(await owner.members.invitations.revoke(first.id), {
      id: first.id,
      deleted: true,
      revoked: true,
    });
    assert.deepEqual(
      (await owner.members.invitations.list()).items.map((i) => i.id),
      [second.id],
    );
    const again = await rejection(() => owner.members.invitations.revoke(first.id));
    assert.ok(again instanceof NotFoundError);
    assert.equal(again.code, 'NOT_FOUND');
    const joining = new ManagementClient({ baseUrl: server.url });
    const refused = await rejection(() =>
      joining.signup({ email: first.email, password: PASSWORD, invitationToken: first.token }),
    );
    assert.ok(refused instanceof ValidationError);
    assert.equal(refused.code, 'VALIDATION_ERROR');
    assert.equal(joining.token, undefined);

    // An invitation reveals no account: an email with a login is invited like any other, and one organization
    // per login is the invited person's answer when they sign up with the token.
    const invited = await owner.members.invitations.create({ email: ownerEmail, role: 'viewer' });
    assert.equal(invited.email, ownerEmail);
    const taken = await rejection(() =>
      new ManagementClient({ baseUrl: server.url }).signup({
        email: ownerEmail,
        password: PASSWORD,
        invitationToken: invited.token,
      }),
    );
    assert.ok(taken instanceof ConflictError);
    assert.equal(taken.code, 'EMAIL_TAKEN');
  });

  test('alerts: create for an agent wallet and the master wallet, list (all or one wallet’s), delete', async () => {
    const { mgmt, walletId } = await newAgent(server.url, { freshOwner: true });
    const low = await mgmt.alerts.create({ type: 'balance_below', walletId, params: { amount: '10' } });
    assert.equal(low.type, 'balance_below');
    assert.equal(low.walletId, walletId);
    assert.deepEqual(low.params, { amount: '10.000000' });
    assert.equal(low.firing, false);
    const cap = await mgmt.alerts.create({ type: 'cap_used', walletId, params: { percent: 80 } });
    assert.deepEqual([cap.type, cap.walletId, cap.params], ['cap_used', walletId, { percent: 80 }]);
    const master = await mgmt.alerts.create({ type: 'balance_below', params: { amount: '5' } });
    assert.equal(master.walletId, (await mgmt.wallet()).id, 'without walletId: the master wallet');

    assert.deepEqual(
      (await mgmt.alerts.list()).items.map((a) => a.id),
      [master.id, cap.id, low.id],
    );
    assert.deepEqual(
      (await mgmt.alerts.list({ walletId })).items.map((a) => a.id),
      [cap.id, low.id],
    );
    assert.deepEqual(await mgmt.alerts.delete(low.id), { id: low.id, deleted: true });
    assert.deepEqual(
      (await mgmt.alerts.list({ walletId })).items.map((a) => a.id),
      [cap.id],
    );

    const unknown = await rejection(() => mgmt.alerts.delete(low.id));
    assert.ok(unknown instanceof NotFoundError);
    assert.equal(unknown.code, 'NOT_FOUND');
    assert.equal(unknown.status, 404);
    const invalid = await rejection(() =>
      mgmt.alerts.create({ type: 'cap_used', walletId, params: { percent: 101 } }),
    );
    assert.ok(invalid instanceof ValidationError);
  });

  test('audit: the writes just made (without secrets), its filters, and for await across pages', async () => {
    const { mgmt, email, walletId } = await newAgent(server.url, { freshOwner: true });
    const { user } = await mgmt.me();
    const since = new Date(Date.now() - 1_000);
    const policy = await mgmt.policies.create(walletId, {
      type: 'spend_cap_per_tx',
      params: { limit: '50' },
    });
    const alert = await mgmt.alerts.create({ type: 'cap_used', walletId, params: { percent: 90 } });
    await mgmt.members.invitations.create({ email: uniqueEmail('audited'), role: 'viewer' });
    await mgmt.agentWallets.rename(walletId, 'audited');

    const page = await mgmt.audit.list({ limit: 4 });
    assert.deepEqual([page.page, page.limit, page.items.length], [1, 4, 4]);
    assert.deepEqual(
      page.items.map((e) => e.action),
      ['updateAgentWallet', 'inviteMember', 'createAlert', 'createPolicy'],
    );
    for (const entry of page.items)
      assert.deepEqual(entry.actor, { type: 'member', id: user.id, label: email });
    const [renamed, invited, alerted, capped] = page.items as [
      AuditEntry,
      AuditEntry,
      AuditEntry,
      AuditEntry,
    ];
    assert.equal(renamed.walletId, walletId);
    assert.equal((renamed.after as { label?: string }).label, 'audited');
    assert.equal(alerted.target, alert.id);
    assert.equal(capped.target, policy.id);
    assert.equal(capped.walletId, walletId);
    assert.equal('token' in (invited.after as object), false, 'the invitation token is not in the log');
    const createKey = (await mgmt.audit.list({ limit: 100 })).items.find((e) => e.action === 'createKey');
    assert.ok(createKey !== undefined);
    assert.equal('key' in (createKey.after as object), false, 'the API key is not in the log');

    // for await: every entry of every page (2 a page), the same as one big page.
    const all = await mgmt.audit.list({ limit: 100 });
    assert.ok(all.total > 4 && all.total < 100, String(all.total));
    const iterated: string[] = [];
    for await (const entry of mgmt.audit.list({ limit: 2 })) iterated.push(entry.id);
    assert.deepEqual(
      iterated,
      all.items.map((e) => e.id),
    );
    const fromPage2: string[] = [];
    for await (const entry of mgmt.audit.list({ page: 2, limit: 2 })) fromPage2.push(entry.id);
    assert.deepEqual(fromPage2, iterated.slice(2));

    const byWallet = await mgmt.audit.list({ walletId, limit: 100 });
    assert.ok(byWallet.total > 0);
    assert.ok(byWallet.items.every((e) => e.walletId === walletId));
    assert.ok(!byWallet.items.some((e) => e.action === 'inviteMember'));
    const byActor = await mgmt.audit.list({ actor: user.id, limit: 100 });
    assert.ok(byActor.items.length >= 4 && byActor.items.every((e) => e.actor.id === user.id));
    const recent = await mgmt.audit.list({ from: since, to: new Date(Date.now() + 1_000) });
    assert.ok(recent.total >= 4);
    assert.equal((await mgmt.audit.list({ from: new Date(Date.now() + DAY_MS) })).total, 0);
    assert.equal((await mgmt.audit.list({ to: '2000-01-01T00:00:00Z' })).total, 0);

    const badDate = await rejection(() => mgmt.audit.list({ from: 'yesterday' }));
    assert.ok(badDate instanceof ValidationError);
    assert.equal(badDate.code, 'VALIDATION_ERROR');

    // Another organization's log is its own.
    const { mgmt: stranger } = await newOwner(server.url, {}, '0');
    assert.equal((await stranger.audit.list()).total, 0);
  });
});
