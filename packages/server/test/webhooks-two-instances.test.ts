// Two instances on one PostgreSQL deliver webhooks together: one delivery at a time per endpoint (the endpoint's
// lease), every event delivered exactly once when the receiver answers 2xx.
import assert from 'node:assert/strict';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunningServer } from '../src/server.ts';
import { createKey, fund, OUTSIDE_ADDRESS, tool } from './support/agent.helpers.ts';
import { type Harness, secondInstance, startHarness, storeTargets } from './support/harness.ts';
import { fundedUser } from './support/http.ts';

const postgres = (await storeTargets()).find((t) => t.name === 'postgres')!;

describe('webhooks with two instances on one PostgreSQL', { skip: postgres.skip }, () => {
  let h: Harness;
  let second: RunningServer;
  let server: Server;
  let url: string;
  const seen: string[] = [];
  const inFlight = { now: 0, max: 0 };

  before(async () => {
    h = await startHarness('postgres', 'webhooks-two', { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    second = await secondInstance(h);
    // A slow receiver: overlapping deliveries to it would show as more than one in flight.
    server = createHttpServer((req, res) => {
      let body = '';
      inFlight.now += 1;
      inFlight.max = Math.max(inFlight.max, inFlight.now);
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on('end', async () => {
        await sleep(20);
        seen.push((JSON.parse(body) as { id: string }).id);
        inFlight.now -= 1;
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  after(async () => {
    await second?.close();
    await h?.close();
    await new Promise<void>((done) => server.close(() => done()));
  });

  test('one delivery at a time per endpoint, each event exactly once', async () => {
    const setup = await fundedUser(h.app, '1000');
    await fund(setup.user, setup.walletId, '100');
    const key = await createKey(setup.user, setup.walletId);
    const created = await setup.user.api.post('/api/v1/webhooks', { url, events: ['payment.completed'] });
    assert.equal(created.status, 201, created.raw);
    for (let i = 0; i < 12; i += 1) {
      const paid = await tool(h.app, key, 'send_payment', { toAddress: OUTSIDE_ADDRESS, amount: '1' });
      assert.equal(paid.status, 200);
    }
    for (let round = 0; round < 4; round += 1) {
      await Promise.all([h.services.deliverWebhooks(), second.services.deliverWebhooks()]);
    }
    assert.equal(seen.length, 12, 'every event delivered');
    assert.equal(new Set(seen).size, 12, 'none twice');
    assert.equal(inFlight.max, 1, 'never two deliveries to the endpoint at once');
  });
});
