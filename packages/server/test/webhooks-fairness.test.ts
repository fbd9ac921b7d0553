// One tenant cannot delay another's webhooks: an account whose endpoints accept the connection and never answer
// (each delivery costs the full 10 s timeout) must not hold up another user's event. The real background worker
// runs on its own timers against real loopback receivers; the victim's event must arrive well inside the
// attacker's timeout while the attacker's deliveries are still hanging.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { WEBHOOK_IN_FLIGHT_PER_USER } from '../src/domain/webhooks/webhook-scheduling.ts';
import { DELIVERY_TIMEOUT_MS } from '../src/services/webhooks/webhook-http.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { signupUser, type TestUser } from './support/http.ts';
import { waitFor } from './support/service-http.ts';

const ATTACKER_ENDPOINTS = 6;
const ATTACKER_EVENTS = 3;
const VICTIM_BOUND_MS = 3_000;

/** Reads each request and never answers: every delivery to it waits for the sender's timeout. */
async function startHangingReceiver() {
  const sockets = new Set<Socket>();
  const state = { requests: 0, open: 0, maxOpen: 0 };
  const server: Server = createServer((req) => {
    state.requests += 1;
    state.open += 1;
    state.maxOpen = Math.max(state.maxOpen, state.open);
    req.socket.once('close', () => {
      state.open -= 1;
    });
    req.resume();
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    state,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((done) => server.close(() => done()));
    },
  };
}

/** Answers 204 at once and notes when each event arrived. */
async function startPromptReceiver() {
  const arrivals: Array<{ atMs: number; id: string }> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      arrivals.push({ atMs: Date.now(), id: (JSON.parse(body) as { id: string }).id });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return { url, arrivals, close: () => new Promise<void>((done) => server.close(() => done())) };
}

async function addEndpoint(user: TestUser, url: string): Promise<void> {
  const created = await user.api.post('/api/v1/webhooks', { url, events: ['deposit.credited'] });
  assert.equal(created.status, 201, created.raw);
}

async function deposit(user: TestUser): Promise<void> {
  const reply = await user.api.post('/api/v1/wallet/sandbox/deposit', { amount: '1' });
  assert.equal(reply.status, 201, reply.raw);
}

for (const target of await storeTargets()) {
  describe(`webhook fairness between tenants (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    let hanging: Awaited<ReturnType<typeof startHangingReceiver>>;
    let prompt: Awaited<ReturnType<typeof startPromptReceiver>>;
    let closed = false;
    before(async () => {
      hanging = await startHangingReceiver();
      prompt = await startPromptReceiver();
      h = await startHarness(target.name, 'webhooks_fairness', {
        env: { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_INTERVAL_MS: '100' },
        backgroundIntervalMs: 60_000,
      });
    });
    after(async () => {
      // Hung sockets first: a worker still waiting on them gets its answer (an error) at once.
      await hanging?.close();
      if (!closed) await h?.close();
      await prompt?.close();
    });

    test("an account whose endpoints never answer does not delay another user's event", async () => {
      assert.ok(VICTIM_BOUND_MS < DELIVERY_TIMEOUT_MS / 3, 'the bound is well under one timeout');
      const attacker = await signupUser(h.app, 'attacker');
      for (let i = 0; i < ATTACKER_ENDPOINTS; i += 1) await addEndpoint(attacker, `${hanging.base}/hook${i}`);
      const victim = await signupUser(h.app, 'victim');
      await addEndpoint(victim, prompt.url);
      for (let i = 0; i < ATTACKER_EVENTS; i += 1) await deposit(attacker);
      await waitFor('the attacker’s deliveries are hanging', async () => hanging.state.open >= 1, 5_000);

      const sentMs = Date.now();
      await deposit(victim);
      await waitFor('the victim’s event arrives', async () => prompt.arrivals.length === 1, VICTIM_BOUND_MS);
      const latencyMs = prompt.arrivals[0]!.atMs - sentMs;
      assert.ok(latencyMs < VICTIM_BOUND_MS, `the victim waited ${latencyMs} ms`);
      assert.ok(hanging.state.open >= 1, 'the attacker’s deliveries were still hanging meanwhile');
      assert.ok(hanging.state.maxOpen >= 3, `deliveries run side by side (${hanging.state.maxOpen} at once)`);
      assert.ok(
        hanging.state.maxOpen <= WEBHOOK_IN_FLIGHT_PER_USER,
        `one user has at most ${WEBHOOK_IN_FLIGHT_PER_USER} in flight (${hanging.state.maxOpen})`,
      );
    });

    test('stopping the service cuts the hanging deliveries short instead of waiting out their timeout', async () => {
      assert.ok(hanging.state.open >= 1, 'deliveries are still hanging');
      const startedMs = Date.now();
      closed = true;
      await h.close();
      const tookMs = Date.now() - startedMs;
      assert.ok(tookMs < VICTIM_BOUND_MS, `closing took ${tookMs} ms`);
    });
  });
}
