// Webhooks against a real local receiver, on both stores: endpoints and their secret (shown once), events written
// with the change they report, signatures the SDK verifies, the events filter, retries with backoff until a 2xx
// (exactly one delivered record), giving up after the retry window, redelivery, and SSRF refusals without
// WEBHOOK_ALLOW_PRIVATE. A SIGKILLed server delivers the event after its restart.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { verifyWebhook } from '../../sdk/src/webhooks.ts';
import { RETRY_WINDOW_MS } from '../src/services/webhooks/webhook-delivery.ts';
import { addPolicy, createKey, fund, OUTSIDE_ADDRESS, tool } from './support/agent.helpers.ts';
import { expectValidation } from './support/foundation.ts';
import { GENEROUS_RATE_LIMITS, type Harness, startHarness, storeTargets } from './support/harness.ts';
import { expectError, fundedUser, signupUser } from './support/http.ts';
import { type ServiceProcess, startServiceProcess } from './support/processes.ts';
import { request, waitFor } from './support/service-http.ts';

interface Received {
  body: string;
  signature: string | undefined;
}

/** A receiver on loopback that answers `failures` 500s, then 200s. */
async function startReceiver() {
  const received: Received[] = [];
  const state = { failures: 0 };
  const server: Server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      received.push({ body, signature: req.headers['agent-wallet-signature'] as string | undefined });
      if (state.failures > 0) {
        state.failures -= 1;
        res.writeHead(500).end('try again later');
      } else res.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return { url, received, state, close: () => new Promise<void>((done) => server.close(() => done())) };
}

/** A loopback URL nothing listens on: every attempt is refused at once, with no answer. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return `http://127.0.0.1:${port}/hooks`;
}

const events = (received: Received[]) =>
  // biome-ignore lint/suspicious/noExplicitAny: event data is arbitrary JSON
  received.map((r) => JSON.parse(r.body) as { id: string; type: string; data: any });

for (const target of await storeTargets()) {
  describe(`webhooks (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    before(async () => {
      h = await startHarness(target.name, 'webhooks', { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
      receiver = await startReceiver();
    });
    after(async () => {
      await h?.close();
      await receiver?.close();
    });

    async function agentWithEndpoint(body: Record<string, unknown> = {}) {
      const setup = await fundedUser(h.app, '1000');
      await fund(setup.user, setup.walletId, '100');
      const key = await createKey(setup.user, setup.walletId);
      const created = await setup.user.api.post('/api/v1/webhooks', { url: receiver.url, ...body });
      assert.equal(created.status, 201, created.raw);
      return { ...setup, key, endpoint: created.body.data };
    }

    test('the secret is shown once; a payment’s event arrives signed, and the SDK verifies it', async () => {
      const { user, key, endpoint } = await agentWithEndpoint();
      assert.match(endpoint.secret, /^whsec_[0-9A-Za-z]{32,}$/);
      const list = await user.api.get('/api/v1/webhooks');
      assert.equal(list.body.data.total, 1);
      assert.equal(JSON.stringify(list.body).includes(endpoint.secret), false, 'never listed again');
      receiver.received.length = 0;
      const paid = await tool(h.app, key, 'send_payment', { toAddress: OUTSIDE_ADDRESS, amount: '2' });
      assert.equal(paid.status, 200);
      assert.equal(await h.services.deliverWebhooks(), 1);
      const [delivery] = receiver.received;
      assert.ok(delivery !== undefined);
      const nowSeconds = Math.floor(h.clock.nowMs() / 1000);
      const event = await verifyWebhook(delivery.body, delivery.signature, endpoint.secret, 300, nowSeconds);
      assert.equal(event.type, 'payment.completed');
      assert.match(event.id, /^evt_/);
      assert.equal((event.data as { id: string }).id, paid.body.data.txId);
      await assert.rejects(
        verifyWebhook(delivery.body, delivery.signature, 'whsec_wrong', 300, nowSeconds),
        /does not match/,
      );
      await assert.rejects(
        verifyWebhook(`${delivery.body} `, delivery.signature, endpoint.secret, 300, nowSeconds),
        /does not match/,
      );
      await assert.rejects(
        verifyWebhook(delivery.body, delivery.signature, endpoint.secret, 300, nowSeconds + 301),
        /timestamp/,
      );
      assert.equal(await h.services.deliverWebhooks(), 0, 'delivered once, not again');
    });

    test('the events filter decides what an endpoint receives', async () => {
      const { user, walletId, key } = await agentWithEndpoint({
        events: ['approval.requested', 'wallet.frozen'],
      });
      await addPolicy(user, walletId, 'require_approval_above', { amount: '5' });
      receiver.received.length = 0;
      await tool(h.app, key, 'send_payment', { toAddress: OUTSIDE_ADDRESS, amount: '1' });
      await tool(h.app, key, 'send_payment', { toAddress: OUTSIDE_ADDRESS, amount: '6' });
      await user.api.post(`/api/v1/agent-wallets/${walletId}/freeze`);
      await h.services.deliverWebhooks();
      assert.deepEqual(
        events(receiver.received).map((e) => e.type),
        ['approval.requested', 'wallet.frozen'],
      );
      assert.equal(events(receiver.received)[1]!.data.frozen, true);
    });

    test('a receiver that fails twice gets the event again with backoff, then it is delivered exactly once', async () => {
      const { user, key, endpoint } = await agentWithEndpoint();
      receiver.received.length = 0;
      receiver.state.failures = 2;
      await tool(h.app, key, 'send_payment', { toAddress: OUTSIDE_ADDRESS, amount: '1' });
      assert.equal(await h.services.deliverWebhooks(), 0);
      assert.equal(await h.services.deliverWebhooks(), 0, 'not due again yet: backoff');
      h.clock.advanceSeconds(60);
      assert.equal(await h.services.deliverWebhooks(), 0);
      h.clock.advanceSeconds(120);
      assert.equal(await h.services.deliverWebhooks(), 1);
      h.clock.advanceSeconds(3600);
      assert.equal(await h.services.deliverWebhooks(), 0);
      const ids = new Set(events(receiver.received).map((e) => e.id));
      assert.equal(receiver.received.length, 3);
      assert.equal(ids.size, 1, 'the same event id every time');
      const log = await user.api.get(`/api/v1/webhooks/${endpoint.id}/deliveries`);
      assert.equal(log.body.data.total, 1);
      const [row] = log.body.data.items;
      assert.equal(row.status, 'delivered');
      assert.equal(row.attempts, 3);
      assert.equal(row.responseStatus, 204);
      assert.equal(row.nextAttemptAt, null);
      const again = await user.api.post(`/api/v1/webhooks/${endpoint.id}/deliveries/${row.id}/redeliver`);
      assert.equal(again.status, 200, again.raw);
      assert.equal(again.body.data.status, 'pending');
      assert.equal(await h.services.deliverWebhooks(), 1);
      assert.equal(receiver.received.length, 4);
    });

    test('a receiver that never answers 2xx is given up on after the retry window', async () => {
      const { user, key, endpoint } = await agentWithEndpoint();
      receiver.state.failures = 1_000;
      try {
        await tool(h.app, key, 'send_payment', { toAddress: OUTSIDE_ADDRESS, amount: '1' });
        for (let hour = 0; hour <= 26; hour += 1) {
          await h.services.deliverWebhooks();
          h.clock.advanceSeconds(3600);
        }
        const log = await user.api.get(`/api/v1/webhooks/${endpoint.id}/deliveries`);
        const [row] = log.body.data.items;
        assert.equal(row.status, 'failed');
        assert.ok(row.attempts >= 10, `retried through the window (${row.attempts} attempts)`);
        assert.match(row.lastError, /HTTP 500: try again later/);
        assert.ok(RETRY_WINDOW_MS >= 24 * 3600_000);
      } finally {
        receiver.state.failures = 0;
      }
    });

    test('an endpoint that does not answer gets one attempt per round, then nothing until its backoff has passed', async () => {
      const { user, key, endpoint } = await agentWithEndpoint();
      await user.api.patch(`/api/v1/webhooks/${endpoint.id}`, { url: await closedPortUrl() });
      for (let i = 0; i < 3; i += 1) {
        await tool(h.app, key, 'send_payment', { toAddress: OUTSIDE_ADDRESS, amount: '1' });
      }
      const attempts = async () => {
        const log = await user.api.get(`/api/v1/webhooks/${endpoint.id}/deliveries`);
        return log.body.data.items.map((d: { attempts: number }) => d.attempts).sort();
      };
      assert.equal(await h.services.deliverWebhooks(), 0);
      assert.deepEqual(await attempts(), [0, 0, 1], 'the round stopped at the first unanswered attempt');
      const log = await user.api.get(`/api/v1/webhooks/${endpoint.id}/deliveries`);
      for (const d of log.body.data.items) {
        assert.ok(Date.parse(d.nextAttemptAt) > h.clock.nowMs(), 'every delivery waits out the backoff');
      }
      await h.services.deliverWebhooks();
      assert.deepEqual(await attempts(), [0, 0, 1], 'backing off: not tried again');
      h.clock.advanceSeconds(40);
      await h.services.deliverWebhooks();
      assert.deepEqual(await attempts(), [0, 0, 2], 'after the backoff, the oldest once more');
      receiver.received.length = 0;
      await user.api.patch(`/api/v1/webhooks/${endpoint.id}`, { url: receiver.url });
      assert.equal(await h.services.deliverWebhooks(), 2, 'a new URL starts without the old one’s backoff');
      h.clock.advanceSeconds(90);
      assert.equal(await h.services.deliverWebhooks(), 1, 'the one tried twice, at its own retry time');
      assert.equal(receiver.received.length, 3);
    });

    test('an endpoint that answers with an error keeps its round: the events after a refused one go out', async () => {
      const { key } = await agentWithEndpoint();
      receiver.received.length = 0;
      receiver.state.failures = 1;
      for (let i = 0; i < 3; i += 1) {
        await tool(h.app, key, 'send_payment', { toAddress: OUTSIDE_ADDRESS, amount: '1' });
      }
      assert.equal(await h.services.deliverWebhooks(), 2);
      assert.equal(receiver.received.length, 3);
      h.clock.advanceSeconds(40);
      assert.equal(await h.services.deliverWebhooks(), 1, 'the refused one is retried after its backoff');
      assert.equal(new Set(events(receiver.received).map((e) => e.id)).size, 3);
    });

    test('key and approval events carry the resource as the REST API shows it', async () => {
      const { user, walletId, key } = await agentWithEndpoint({
        events: ['key.revoked', 'key.rotated', 'approval.rejected'],
      });
      receiver.received.length = 0;
      const keys = await user.api.get(`/api/v1/agent-wallets/${walletId}/keys`);
      const keyId = keys.body.data.items[0].id;
      const extra = await user.api.post(`/api/v1/agent-wallets/${walletId}/keys`, { label: 'second' });
      await user.api.post(`/api/v1/agent-wallets/${walletId}/keys/${extra.body.data.id}/rotate`, {});
      const held = await tool(h.app, key, 'request_approval', { toAddress: OUTSIDE_ADDRESS, amount: '1' });
      await user.api.post(`/api/v1/agent-wallets/${walletId}/transactions/${held.body.data.txId}/reject`, {
        reason: 'no',
      });
      await user.api.post(`/api/v1/agent-wallets/${walletId}/keys/${keyId}/revoke`);
      await h.services.deliverWebhooks();
      const got = events(receiver.received);
      assert.deepEqual(
        got.map((e) => e.type),
        ['key.rotated', 'approval.rejected', 'key.revoked'],
      );
      assert.equal(got[0]!.data.id, extra.body.data.id);
      assert.equal(got[2]!.data.id, keyId);
      for (const secret of [key, extra.body.data.key]) {
        assert.equal(
          JSON.stringify(got).includes(secret),
          false,
          'no key in events (only its display prefix)',
        );
      }
      assert.equal(got[1]!.data.status, 'rejected');
    });

    test('a description or URL holding an unpaired surrogate is a 400 naming it; nothing is stored or changed', async () => {
      const { user, endpoint } = await agentWithEndpoint({ description: 'kept' });
      // This user's endpoints only: the suite's other tests run alongside.
      const endpoints = async () =>
        JSON.stringify(
          await h.services.store.db
            .selectFrom('webhook_endpoints')
            .select(['id', 'url', 'events_json', 'description'])
            .where('user_id', '=', user.id)
            .orderBy('id')
            .execute(),
        );
      const before = await endpoints();
      for (const description of ['bad\ud800', '\udc00']) {
        expectValidation(
          await user.api.post('/api/v1/webhooks', { url: receiver.url, description }),
          'description',
          /unpaired surrogate/,
        );
        expectValidation(
          await user.api.patch(`/api/v1/webhooks/${endpoint.id}`, { description }),
          'description',
          /unpaired surrogate/,
        );
      }
      expectValidation(
        await user.api.post('/api/v1/webhooks', { url: `${receiver.url}?\ud800` }),
        'url',
        /unpaired surrogate/,
      );
      assert.equal(await endpoints(), before);
      const list = await user.api.get('/api/v1/webhooks');
      assert.deepEqual(
        list.body.data.items.map((item: { description: string | null }) => item.description),
        ['kept'],
      );
    });

    test('another user’s endpoint is a 404; bad input a 400', async () => {
      const { endpoint } = await agentWithEndpoint();
      const stranger = await signupUser(h.app);
      expectError(
        await stranger.api.patch(`/api/v1/webhooks/${endpoint.id}`, { description: 'x' }),
        404,
        'NOT_FOUND',
      );
      expectError(await stranger.api.delete(`/api/v1/webhooks/${endpoint.id}`), 404, 'NOT_FOUND');
      expectError(await stranger.api.get(`/api/v1/webhooks/${endpoint.id}/deliveries`), 404, 'NOT_FOUND');
      expectError(
        await stranger.api.post('/api/v1/webhooks', { url: receiver.url, events: ['nope'] }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(await stranger.api.post('/api/v1/webhooks', { url: 'not a url' }), 400, 'VALIDATION_ERROR');
      expectError(
        await stranger.api.post('/api/v1/webhooks', { url: receiver.url, extra: 1 }),
        400,
        'VALIDATION_ERROR',
      );
    });
  });
}

describe('webhook URLs without WEBHOOK_ALLOW_PRIVATE', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite', 'webhooks-ssrf');
  });
  after(() => h?.close());

  test('loopback, private and link-local targets and http:// are refused', async () => {
    const user = await signupUser(h.app);
    for (const url of [
      'http://example.com/hooks',
      'https://127.0.0.1/hooks',
      'https://localhost/hooks',
      'https://10.1.2.3/hooks',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hooks',
      'https://[::ffff:127.0.0.1]/hooks',
      'https://user:pass@example.com/hooks',
    ]) {
      const reply = await user.api.post('/api/v1/webhooks', { url });
      expectError(reply, 400, 'VALIDATION_ERROR');
    }
    assert.equal((await user.api.get('/api/v1/webhooks')).body.data.total, 0);
  });

  test('IPv6 forms that carry a private IPv4 address are refused (outside finding 5)', async () => {
    const user = await signupUser(h.app);
    for (const host of [
      '[64:ff9b::169.254.169.254]',
      '[::127.0.0.1]',
      '[::ffff:0:127.0.0.1]',
      '[64:ff9b::10.0.0.1]',
      '[2002:a9fe:a9fe::]',
      '[2001:0:a9fe:a9fe::]',
    ]) {
      const reply = await user.api.post('/api/v1/webhooks', { url: `https://${host}/hooks` });
      expectError(reply, 400, 'VALIDATION_ERROR');
      assert.match(reply.body.error.message, /^url must point to a public address/, host);
    }
    assert.equal((await user.api.get('/api/v1/webhooks')).body.data.total, 0);
  });
});

describe('webhooks across a crash', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const started: ServiceProcess[] = [];
  before(async () => {
    receiver = await startReceiver();
  });
  after(async () => {
    for (const s of started) await s.kill();
    await receiver?.close();
  });

  test('an event of a change made just before a SIGKILL is delivered after the restart', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const env = {
      DATA_DIR: mkdtempSync(join(tmpdir(), 'agent-wallet-webhook-crash-')),
      JWT_SECRET: 'webhook-crash-test-secret-of-32-characters!',
      RATE_LIMITS: GENEROUS_RATE_LIMITS,
      WEBHOOK_ALLOW_PRIVATE: 'true',
    };
    const first = await startServiceProcess({ ...env, WEBHOOK_POLL_INTERVAL_MS: '3600000' });
    started.push(first);
    const signup = await request(first.url, 'POST', '/api/v1/auth/signup', undefined, {
      email: 'hooks@example.test',
      password: 'a long enough password',
    });
    const token = signup.body.data.token;
    await request(first.url, 'POST', '/api/v1/webhooks', token, {
      url: receiver.url,
      events: ['deposit.credited'],
    });
    const deposit = await request(first.url, 'POST', '/api/v1/wallet/sandbox/deposit', token, {
      amount: '12',
    });
    assert.equal(deposit.status, 201);
    await first.kill();
    assert.equal(receiver.received.length, 0, 'nothing was delivered before the crash');
    const second = await startServiceProcess(env);
    started.push(second);
    await waitFor('the event is delivered', async () => receiver.received.length === 1, 10_000);
    const [event] = events(receiver.received);
    assert.equal(event!.type, 'deposit.credited');
    assert.equal(event!.data.id, deposit.body.data.id);
  });
});
