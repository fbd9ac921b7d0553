// Membership changes are alarms (contract sections 8 and 10): an owner or admin invited, a role changed, a member
// removed — each is a `security.member_*` webhook event to the organization and an email to every owner, and the
// member a role change or removal is about is told at their own address: the demoted one though their new role
// receives no security mail (and though they had turned it off), the removed one though they are no longer a
// member. Through a real SMTP server on loopback and a webhook receiver, on both stores.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { agentWithKey, createKey } from '../../../test/support/agent.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { addMember, type TestUser } from '../../../test/support/http.ts';
import { type SmtpSink, startSmtpSink } from '../../../test/support/smtp-sink.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/support/webhook-receiver.ts';

const MEMBER_EVENTS = ['security.member_invited', 'security.member_role_changed', 'security.member_removed'];

// biome-ignore lint/suspicious/noExplicitAny: webhook bodies are JSON
type Delivered = { type: string; data: any };

for (const target of await storeTargets()) {
  describe(`membership alarms (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let sink: SmtpSink;
    let receiver: WebhookReceiver;
    before(async () => {
      sink = await startSmtpSink({ user: 'alarms', password: 'smtp-password-of-the-alarms-suite' });
      receiver = await startWebhookReceiver();
      h = await startHarness(target.name, 'members_alarms', {
        env: {
          SMTP_URL: sink.url,
          MAIL_FROM: 'Agent Wallet <wallet@example.test>',
          PUBLIC_URL: 'https://wallet.example.test',
          WEBHOOK_ALLOW_PRIVATE: 'true',
        },
      });
    });
    after(async () => {
      await h?.close();
      await sink?.close();
      await receiver?.close();
    });

    /** Sends every due mail and webhook; answers what arrived since the last call, and forgets it. */
    async function arrived() {
      while ((await h.services.sendEmails()) > 0) {}
      while ((await h.services.deliverWebhooks()) > 0) {}
      const mails = sink.received.splice(0).map((m) => ({ to: m.to, subject: m.subject, text: m.text }));
      const events: Delivered[] = receiver.received.splice(0).map((d) => JSON.parse(d.body));
      return { mails, events };
    }

    /** An organization of two owners, an admin and a viewer, whose webhook listens to membership events. */
    async function organization() {
      const agent = await agentWithKey(h, { fund: '0' });
      const owner = agent.user;
      const hook = await owner.api.post('/api/v1/webhooks', { url: receiver.url, events: MEMBER_EVENTS });
      assert.equal(hook.status, 201, hook.raw);
      const coOwner = (await addMember(h.app, owner, 'owner', 'coowner')).member;
      const admin = (await addMember(h.app, owner, 'admin')).member;
      const viewer = (await addMember(h.app, owner, 'viewer')).member;
      await arrived();
      return { agent, owner, coOwner, admin, viewer };
    }

    const recipients = (mails: Array<{ to: string }>) => mails.map((m) => m.to).sort();
    const emails = (...users: TestUser[]) => users.map((u) => u.email).sort();

    test('inviting an owner or an admin tells every owner; inviting a viewer is no alarm', async () => {
      const { owner, coOwner } = await organization();
      const email = `incoming.${process.pid}@example.test`;
      const invited = await coOwner.api.post('/api/v1/members/invitations', { email, role: 'admin' });
      assert.equal(invited.status, 201, invited.raw);
      const { mails, events } = await arrived();
      assert.deepEqual(recipients(mails), emails(owner, coOwner));
      for (const mail of mails) {
        assert.equal(mail.subject, `Security: ${email} was invited as admin`);
        assert.ok(mail.text.includes(`By: ${coOwner.email}`), mail.text);
        assert.ok(!mail.text.includes(invited.body.data.token), 'the invitation token is never mailed');
      }
      assert.deepEqual(
        events.map((e) => [e.type, e.data.member, e.data.by.email, e.data.detail.role]),
        [['security.member_invited', { id: null, email }, coOwner.email, 'admin']],
      );
      const viewer = await owner.api.post('/api/v1/members/invitations', {
        email: `quiet.${process.pid}@example.test`,
        role: 'viewer',
      });
      assert.equal(viewer.status, 201, viewer.raw);
      assert.deepEqual(await arrived(), { mails: [], events: [] });
    });

    test('a demotion tells every owner and the demoted member, who no longer receives security mail', async () => {
      const { owner, coOwner, admin } = await organization();
      // The co-owner turned security mail off: as the one demoted, they are told all the same.
      const off = await coOwner.api.patch('/api/v1/auth/notifications', { email: { security: false } });
      assert.equal(off.status, 200, off.raw);
      const demoted = await owner.api.patch(`/api/v1/members/${coOwner.id}`, { role: 'viewer' });
      assert.equal(demoted.status, 200, demoted.raw);
      const first = await arrived();
      assert.deepEqual(recipients(first.mails), emails(owner, coOwner));
      const own = first.mails.find((m) => m.to === coOwner.email);
      assert.equal(own?.subject, 'Security: your role is now viewer');
      assert.equal(
        first.mails.find((m) => m.to === owner.email)?.subject,
        `Security: ${coOwner.email} is now viewer`,
      );
      assert.deepEqual(
        first.events.map((e) => [e.type, e.data.member, e.data.detail]),
        [
          [
            'security.member_role_changed',
            { id: coOwner.id, email: coOwner.email },
            { from: 'owner', to: 'viewer', by: owner.email },
          ],
        ],
      );
      // A promotion is an alarm too: the admin made owner; they hear of it as the member it is about.
      const promoted = await owner.api.patch(`/api/v1/members/${admin.id}`, { role: 'owner' });
      assert.equal(promoted.status, 200, promoted.raw);
      const second = await arrived();
      assert.deepEqual(recipients(second.mails), emails(owner, admin));
      assert.deepEqual(
        second.events.map((e) => [e.type, e.data.detail.from, e.data.detail.to]),
        [['security.member_role_changed', 'admin', 'owner']],
      );
      // The member sees it in their own security events.
      const listed = await coOwner.api.get('/api/v1/auth/security-events');
      assert.deepEqual(
        listed.body.data.items.map((e: { type: string; detail: Record<string, string> }) => [
          e.type,
          e.detail,
        ]),
        [['security.member_role_changed', { from: 'owner', to: 'viewer', by: owner.email }]],
      );
      // The same role again is no change and no alarm.
      assert.equal((await owner.api.patch(`/api/v1/members/${admin.id}`, { role: 'owner' })).status, 200);
      assert.deepEqual(await arrived(), { mails: [], events: [] });
    });

    test('a removal tells every owner and the removed member at their address, with what ended', async () => {
      const { agent, owner, coOwner, admin } = await organization();
      await createKey(admin, agent.walletId, { label: 'leaves with them' });
      await arrived();
      const removed = await coOwner.api.delete(`/api/v1/members/${admin.id}`);
      assert.equal(removed.status, 200, removed.raw);
      const { mails, events } = await arrived();
      assert.deepEqual(recipients(mails), emails(owner, coOwner, admin));
      const theirs = mails.find((m) => m.to === admin.email);
      assert.equal(theirs?.subject, 'Security: you were removed from an organization');
      assert.ok(theirs?.text.includes(`By: ${coOwner.email}`), theirs?.text);
      for (const mail of mails.filter((m) => m.to !== admin.email)) {
        assert.equal(mail.subject, `Security: ${admin.email} was removed`);
        assert.ok(mail.text.includes('API keys revoked: 1'), mail.text);
      }
      assert.deepEqual(
        events.map((e) => [e.type, e.data.member, e.data.by, e.data.detail]),
        [
          [
            'security.member_removed',
            { id: admin.id, email: admin.email },
            { id: coOwner.id, email: coOwner.email },
            {
              role: 'admin',
              revokedKeys: '1',
              revokedOAuth: '0',
              keptKeys: '0',
              keptOAuth: '0',
              by: coOwner.email,
            },
          ],
        ],
      );
    });

    test('a removed owner is told too, though no longer an owner nor a member', async () => {
      const { owner, coOwner } = await organization();
      const removed = await owner.api.delete(`/api/v1/members/${coOwner.id}?keepKeys=true`);
      assert.equal(removed.status, 200, removed.raw);
      const { mails } = await arrived();
      assert.deepEqual(recipients(mails), emails(owner, coOwner));
      assert.equal(
        mails.find((m) => m.to === coOwner.email)?.subject,
        'Security: you were removed from an organization',
      );
    });
  });
}
