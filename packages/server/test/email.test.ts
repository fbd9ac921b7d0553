// Email for what needs a person (issue 29, contract section 10) through a real SMTP server on loopback (the
// smtp-server package, with a login), mails read back with mailparser, on both stores: an agent's
// request_approval reaches every member with approve rights — owner, admin, approver — with a link to the
// approval in the dashboard, not a viewer nor an approver who turned approvals off; no secret (API key,
// session token, invitation token, SMTP password) is in any mail or log line; with the SMTP server down the
// mail is retried with backoff and sent exactly once when it is back; a SIGKILLed server sends the queued mail
// after its restart.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { generate } from 'otplib';
import type { Role } from '../src/domain/organizations/roles.ts';
import { createKey, fund, OUTSIDE_ADDRESS, tool } from './support/agent.helpers.ts';
import { GENEROUS_RATE_LIMITS, type Harness, startHarness, storeTargets } from './support/harness.ts';
import { addMember as addMemberTo, expectError, fundedUser, type TestUser } from './support/http.ts';
import { type ServiceProcess, startServiceProcess } from './support/processes.ts';
import { request, waitFor } from './support/service-http.ts';
import { type ReceivedMail, type SmtpSink, startSmtpSink } from './support/smtp-sink.ts';

const SMTP_USER = 'wallet-mailer';
const SMTP_PASSWORD = 'smtp-password-of-the-email-suite';
const MAIL_FROM = 'Agent Wallet <wallet@example.test>';
const PUBLIC_URL = 'https://wallet.example.test';
const PASSWORD = 'a long enough password';

/** Every mail any sink of this file received, for the check that no secret is in one. */
const allMail: ReceivedMail[] = [];

/** An SMTP server on loopback that wants a login; `port` 0 picks one, a known one restarts it there. */
function startSink(port = 0, received: ReceivedMail[] = []) {
  return startSmtpSink(
    { user: SMTP_USER, password: SMTP_PASSWORD },
    { port, received, onMail: (mail) => allMail.push(mail) },
  );
}
type Sink = SmtpSink;

for (const target of await storeTargets()) {
  describe(`email (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let sink: Sink;
    const logLines: string[] = [];
    const secrets: string[] = [];
    before(async () => {
      sink = await startSink();
      h = await startHarness(target.name, 'email', {
        env: { SMTP_URL: sink.url, MAIL_FROM, PUBLIC_URL },
        logTo: new Writable({
          write(chunk, _encoding, done) {
            logLines.push(chunk.toString());
            done();
          },
        }),
      });
    });
    after(async () => {
      await h?.close();
      await sink?.close();
    });

    /** Sends what is due (a round may stop early when the server is down) and forgets what arrived before. */
    async function drain() {
      while ((await h.services.sendEmails()) > 0) {}
      sink.received.length = 0;
    }

    async function addMember(owner: TestUser, role: Role): Promise<TestUser> {
      const { member, invitationToken } = await addMemberTo(h.app, owner, role);
      secrets.push(invitationToken, member.token);
      return member;
    }

    /** An organization with one member of each role, an agent wallet with money and its key. */
    async function organization() {
      const { user: owner, walletId } = await fundedUser(h.app, '1000');
      secrets.push(owner.token);
      await fund(owner, walletId, '100');
      const key = await createKey(owner, walletId);
      secrets.push(key);
      const members = {
        admin: await addMember(owner, 'admin'),
        approver: await addMember(owner, 'approver'),
        quiet: await addMember(owner, 'approver'),
        viewer: await addMember(owner, 'viewer'),
      };
      return { owner, walletId, key, members };
    }

    test('a member’s own choices: defaults by role, turned off and on again', async () => {
      const { owner, members } = await organization();
      const mine = await owner.api.get('/api/v1/auth/notifications');
      assert.equal(mine.status, 200, mine.raw);
      assert.deepEqual(mine.body.data, {
        emailConfigured: true,
        email: {
          'approval.requested': true,
          security: true,
          'withdrawal_address.added': true,
          'balance.low': true,
          'budget.threshold': true,
          'wallet.frozen': true,
          'treasury.at_risk': true,
        },
        emailKindsForRole: [
          'approval.requested',
          'security',
          'withdrawal_address.added',
          'balance.low',
          'budget.threshold',
          'wallet.frozen',
          'treasury.at_risk',
        ],
      });
      const viewer = await members.viewer.api.get('/api/v1/auth/notifications');
      assert.deepEqual(viewer.body.data.emailKindsForRole, []);
      const approver = await members.approver.api.get('/api/v1/auth/notifications');
      assert.deepEqual(approver.body.data.emailKindsForRole, ['approval.requested']);

      const off = await owner.api.patch('/api/v1/auth/notifications', {
        email: { security: false, 'wallet.frozen': false },
      });
      assert.equal(off.status, 200, off.raw);
      assert.equal(off.body.data.email.security, false);
      assert.equal(off.body.data.email['wallet.frozen'], false);
      assert.equal(off.body.data.email['approval.requested'], true);
      const on = await owner.api.patch('/api/v1/auth/notifications', { email: { security: true } });
      assert.equal(on.body.data.email.security, true);
      assert.equal(on.body.data.email['wallet.frozen'], false, 'a kind left out keeps its choice');
      // Only one's own: another member's choices did not move.
      const admin = await members.admin.api.get('/api/v1/auth/notifications');
      assert.equal(admin.body.data.email['wallet.frozen'], true);
      expectError(
        await owner.api.patch('/api/v1/auth/notifications', { email: { 'payment.completed': false } }),
        400,
        'VALIDATION_ERROR',
      );
    });

    test('turning an email off needs a recent step-up once a member has a second factor; on needs nothing', async () => {
      const { owner } = await organization();
      const started = await owner.api.post('/api/v1/auth/mfa/totp');
      assert.equal(started.status, 200, started.raw);
      const code = await generate({
        secret: started.body.data.secret,
        epoch: Math.floor(h.clock.nowMs() / 1000),
      });
      const confirmed = await owner.api.post('/api/v1/auth/mfa/totp/confirm', { code });
      assert.equal(confirmed.status, 200, confirmed.raw);
      h.clock.advanceSeconds(h.config.stepUpMaxAgeSeconds + 1);
      const refused = await owner.api.patch('/api/v1/auth/notifications', { email: { security: false } });
      expectError(refused, 403, 'STEP_UP_REQUIRED');
      assert.equal((await owner.api.get('/api/v1/auth/notifications')).body.data.email.security, true);
      const on = await owner.api.patch('/api/v1/auth/notifications', { email: { security: true } });
      assert.equal(on.status, 200, on.raw);
    });

    test('request_approval mails the owner, the admin and the approver, with the link; not the viewer nor one who opted out', async () => {
      const { owner, walletId, key, members } = await organization();
      const quiet = await members.quiet.api.patch('/api/v1/auth/notifications', {
        email: { 'approval.requested': false },
      });
      assert.equal(quiet.status, 200, quiet.raw);
      await drain();
      const held = await tool(h.app, key, 'request_approval', {
        toAddress: OUTSIDE_ADDRESS,
        amount: '12.5',
        reason: `send it to ${secrets[0]} now`,
      });
      assert.equal(held.status, 200, held.raw);
      assert.equal(await h.services.sendEmails(), 3);
      const to = sink.received.map((m) => m.to).sort();
      assert.deepEqual(to, [owner.email, members.admin.email, members.approver.email].sort());
      const link = `${PUBLIC_URL}/agents/${walletId}?tab=approvals`;
      for (const mail of sink.received) {
        assert.equal(mail.subject, 'Approval needed: 12.5 USDC from agent one');
        assert.ok(mail.text.includes(`Review the payment: ${link}`), mail.text);
        assert.ok(mail.text.includes('Amount: 12.5 USDC'), mail.text);
        assert.ok(mail.html.includes(`href="${link}"`), mail.html);
        assert.ok(mail.raw.includes('From: Agent Wallet <wallet@example.test>'), mail.raw);
        assert.equal(mail.text.includes('send it to'), false, 'the agent’s reason is not mailed');
      }
      assert.equal(await h.services.sendEmails(), 0, 'each sent once');
    });

    test('owners get security mail; nothing is mailed when nobody receives the kind', async () => {
      const { owner, walletId, members } = await organization();
      await drain();
      const changed = await owner.api.post('/api/v1/auth/password', {
        currentPassword: owner.password,
        newPassword: 'another long enough password',
      });
      assert.equal(changed.status, 200, changed.raw);
      const frozen = await owner.api.post(`/api/v1/agent-wallets/${walletId}/freeze`);
      assert.equal(frozen.status, 200, frozen.raw);
      assert.equal(await h.services.sendEmails(), 2);
      const subjects = sink.received.map((m) => `${m.to} ${m.subject}`).sort();
      assert.deepEqual(subjects, [
        `${owner.email} Agent wallet frozen: agent one`,
        `${owner.email} Security: the account’s password was changed`,
      ]);
      assert.ok(sink.received.some((m) => m.text.includes(`${PUBLIC_URL}/security`)));
      assert.ok(sink.received.some((m) => m.text.includes(`${PUBLIC_URL}/agents/${walletId}`)));
      sink.received.length = 0;
      // Owners turned wallet.frozen off: an unfreeze and a freeze again send nothing (the admin is no owner).
      await owner.api.patch('/api/v1/auth/notifications', { email: { 'wallet.frozen': false } });
      await members.admin.api.post(`/api/v1/agent-wallets/${walletId}/unfreeze`);
      await members.admin.api.post(`/api/v1/agent-wallets/${walletId}/freeze`);
      assert.equal(await h.services.sendEmails(), 0);
      assert.equal(sink.received.length, 0);
    });

    test('SMTP down: retried with backoff until it is back, then sent exactly once', async () => {
      // The owner alone: one mail, whose attempts are counted.
      const { user: owner, walletId } = await fundedUser(h.app, '100');
      await fund(owner, walletId, '50');
      const key = await createKey(owner, walletId);
      await drain();
      await sink.close();
      try {
        const held = await tool(h.app, key, 'request_approval', { toAddress: OUTSIDE_ADDRESS, amount: '7' });
        assert.equal(held.status, 200, held.raw);
        const row = () =>
          h.services.store.db
            .selectFrom('email_deliveries')
            .selectAll()
            .where('user_id', '=', owner.id)
            .where('status', '!=', 'sent')
            .executeTakeFirstOrThrow();
        assert.equal(await h.services.sendEmails(), 0);
        const first = await row();
        assert.equal(first.status, 'pending');
        assert.equal(first.attempts, 1n);
        assert.match(first.last_error ?? '', /ECONNECTION|ESOCKET/);
        assert.equal((first.last_error ?? '').includes(SMTP_PASSWORD), false);
        const waitMs = Number(first.next_attempt_at_ms) - h.clock.nowMs();
        assert.ok(waitMs >= 24_000 && waitMs <= 36_000, `first backoff ${waitMs} ms`);
        assert.equal(await h.services.sendEmails(), 0);
        assert.equal((await row()).attempts, 1n, 'nothing is tried before the backoff has passed');
        h.clock.advanceMs(waitMs);
        assert.equal(await h.services.sendEmails(), 0);
        const second = await row();
        assert.equal(second.attempts, 2n);
        const secondWaitMs = Number(second.next_attempt_at_ms) - h.clock.nowMs();
        assert.ok(secondWaitMs >= 48_000 && secondWaitMs <= 72_000, `second backoff ${secondWaitMs} ms`);
        h.clock.advanceMs(secondWaitMs);
      } finally {
        sink = await startSink(sink.port, sink.received);
      }
      assert.equal(await h.services.sendEmails(), 1);
      assert.deepEqual(
        sink.received.map((m) => m.to),
        [owner.email],
      );
      h.clock.advanceMs(3_600_000);
      assert.equal(await h.services.sendEmails(), 0, 'sent once, not again');
      const sent = await h.services.store.db
        .selectFrom('email_deliveries')
        .selectAll()
        .where('user_id', '=', owner.id)
        .execute();
      assert.equal(sent.length, 1);
      assert.equal(sent[0]?.status, 'sent');
      assert.equal(sent[0]?.attempts, 3n);
      assert.equal(sent[0]?.lease_holder, null);
    });

    test('two instances never send one mail twice', async () => {
      const { key } = await organization();
      await drain();
      for (let i = 0; i < 3; i += 1) {
        const held = await tool(h.app, key, 'request_approval', { toAddress: OUTSIDE_ADDRESS, amount: '2' });
        assert.equal(held.status, 200, held.raw);
      }
      const { secondInstance } = await import('./support/harness.ts');
      const second = await secondInstance(h);
      try {
        const [a, b] = await Promise.all([h.services.sendEmails(), second.services.sendEmails()]);
        // Three approvals, four members with approve rights each (owner, admin, two approvers).
        assert.equal(a + b, 12, `sent ${a} + ${b}`);
        assert.equal(sink.received.length, 12);
        const rows = await h.services.store.db
          .selectFrom('email_deliveries')
          .select(['status', 'attempts'])
          .where('status', '!=', 'dropped')
          .execute();
        assert.ok(rows.every((r) => r.status === 'sent'));
      } finally {
        await second.close();
      }
    });

    test('no secret in any mail or log line', () => {
      assert.ok(secrets.length > 5);
      assert.ok(allMail.length >= 18, `${allMail.length} mails`);
      for (const mail of allMail) {
        for (const secret of [...secrets, SMTP_PASSWORD]) {
          assert.equal(mail.raw.includes(secret), false, 'a secret in a mail');
        }
      }
      const logs = logLines.join('');
      assert.ok(logs.includes(`email is on: through smtp://127.0.0.1:${sink.port}`), logs.slice(0, 2000));
      assert.equal(logs.includes(SMTP_PASSWORD), false, 'the SMTP password is never logged');
    });
  });
}

describe('email across a crash', () => {
  let sink: Sink;
  const started: ServiceProcess[] = [];
  before(async () => {
    sink = await startSink();
  });
  after(async () => {
    for (const s of started) await s.kill();
    await sink?.close();
  });

  test('a mail queued just before a SIGKILL is sent after the restart', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const env = {
      DATA_DIR: mkdtempSync(join(tmpdir(), 'agent-wallet-email-crash-')),
      JWT_SECRET: 'email-crash-test-secret-of-32-characters!',
      RATE_LIMITS: GENEROUS_RATE_LIMITS,
      SMTP_URL: sink.url,
      MAIL_FROM,
      LOG_LEVEL: 'info',
    };
    // The first process never reaches its first round: the mail is only queued when it dies.
    const first = await startServiceProcess({ ...env, WEBHOOK_POLL_INTERVAL_MS: '3600000' });
    started.push(first);
    const email = `crash.${process.pid}@example.test`;
    const signup = await request(first.url, 'POST', '/api/v1/auth/signup', undefined, {
      email,
      password: PASSWORD,
    });
    const token = signup.body.data.token;
    await request(first.url, 'POST', '/api/v1/wallet/sandbox/deposit', token, { amount: '50' });
    const wallet = await request(first.url, 'POST', '/api/v1/agent-wallets', token, { label: 'crash bot' });
    const walletId = wallet.body.data.id as string;
    await request(first.url, 'POST', `/api/v1/agent-wallets/${walletId}/fund`, token, { amount: '20' });
    const created = await request(first.url, 'POST', `/api/v1/agent-wallets/${walletId}/keys`, token, {
      label: 'agent',
    });
    const key = created.body.data.key as string;
    const held = await request(first.url, 'POST', '/mcp/v1/tools/request_approval', key, {
      params: { toAddress: OUTSIDE_ADDRESS, amount: '3' },
    });
    assert.equal(held.status, 200, JSON.stringify(held.body));
    await first.kill();
    assert.equal(sink.received.length, 0, 'nothing was sent before the crash');
    const second = await startServiceProcess(env);
    started.push(second);
    await waitFor('the mail is sent', async () => sink.received.length === 1, 10_000);
    const [mail] = sink.received;
    assert.equal(mail?.to, email);
    // No PUBLIC_URL: the link is the service's own address, as passkeys see it.
    const port = new URL(second.url).port;
    assert.ok(mail?.text.includes(`http://localhost:${port}/agents/${walletId}?tab=approvals`), mail?.text);
    for (const output of [first.output(), second.output()]) {
      assert.equal(output.includes(SMTP_PASSWORD), false, 'the SMTP password is never logged');
      assert.ok(output.includes('email is on'), output);
    }
    for (const secret of [token, key]) assert.equal(mail?.raw.includes(secret), false);
  });
});
