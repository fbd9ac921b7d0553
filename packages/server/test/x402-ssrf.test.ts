// x402_fetch's outbound guard without X402_ALLOW_PRIVATE (the production default): https only; loopback,
// private, link-local and this machine's names refused before any request; a public-looking name that resolves
// to a private address refused when the socket connects (DNS can change between a check and the request).
// Nothing is paid or recorded for a refused URL.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  OutboundError,
  type OutboundRequest,
  outboundRequest,
  UNREACHABLE,
} from '../src/services/webhooks/outbound-http.ts';
import { createKey, tool } from './support/agent.ts';
import { anvilAvailable } from './support/anvil.ts';
import { type EvmWorld, evmEnv, startEvmWorld } from './support/evm.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { expectError, signupUser } from './support/http.ts';

const probe = await anvilAvailable();

describe('x402_fetch refuses private targets', { skip: probe.available ? false : probe.skip }, () => {
  let world: EvmWorld;
  let h: Harness;
  let key: string;
  before(async () => {
    world = await startEvmWorld();
    h = await startHarness('sqlite', 'x402-ssrf', { env: evmEnv(world) });
    const owner = await signupUser(h.app);
    const wallet = await owner.api.post('/api/v1/agent-wallets', { label: 'buyer' });
    key = (await createKey(owner, wallet.body.data.id, { label: 'k' })).key;
  });
  after(async () => {
    await h?.close();
    await world?.anvil.stop();
  });

  for (const url of [
    'http://example.com/report',
    'https://127.0.0.1/report',
    'https://localhost/report',
    'https://10.1.2.3/report',
    'https://192.168.1.10/report',
    'https://169.254.169.254/latest/meta-data/',
    'https://[::1]/report',
    'https://[fe80::1]/report',
    // IPv6 forms that carry a private IPv4 address (outside finding 5), and a documentation range.
    'https://[64:ff9b::169.254.169.254]/report',
    'https://[::127.0.0.1]/report',
    'https://[::ffff:0:127.0.0.1]/report',
    'https://[64:ff9b::10.0.0.1]/report',
    'https://[2002:a9fe:a9fe::]/report',
    'https://[2001:0:a9fe:a9fe::]/report',
    'https://192.0.2.1/report',
    'https://user:secret@example.com/report',
    'ftp://example.com/report',
  ]) {
    test(`refused: ${url}`, async () => {
      const reply = await tool(h, key, 'x402_fetch', { url, maxAmount: '1' });
      expectError(reply, 400, 'VALIDATION_ERROR');
      assert.match(reply.body.error.message, /^url /);
      assert.ok(!reply.raw.includes('secret'), 'credentials in a refused URL are not echoed');
    });
  }

  test('nothing is recorded for a refused URL', async () => {
    const history = await tool(h, key, 'get_tx_history', {});
    assert.equal(history.body.data.total, 0);
  });

  /** A loopback server that records whether it was reached; `run` gets its port. */
  const withServer = async (run: (port: number) => Promise<void>): Promise<boolean> => {
    const server = createServer((_req, res) => res.end('should not be reached'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    let reached = false;
    server.on('request', () => {
      reached = true;
    });
    try {
      await run((server.address() as AddressInfo).port);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    return reached;
  };
  const get = (url: string): OutboundRequest => ({
    url: new URL(url),
    method: 'GET',
    headers: {},
    body: null,
    totalTimeoutMs: 5_000,
    idleTimeoutMs: 5_000,
    bodyBytesMax: 1024,
    overflow: 'fail',
    allowPrivate: false,
  });
  const refusedAsUnreachable = (error: unknown) =>
    error instanceof OutboundError && error.message === UNREACHABLE;

  test('a name that resolves to a private address is refused when the socket connects', async () => {
    const reached = await withServer((port) =>
      assert.rejects(outboundRequest(get(`http://localhost:${port}/`)), refusedAsUnreachable),
    );
    assert.equal(reached, false);
  });

  // Node connects to an address literal without calling the socket's lookup: the literal is checked itself.
  test('an address literal is refused at request time too, in any of its forms', async () => {
    const reached = await withServer(async (port) => {
      for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', '[::127.0.0.1]', '[::ffff:0:127.0.0.1]']) {
        await assert.rejects(outboundRequest(get(`http://${host}:${port}/`)), refusedAsUnreachable, host);
      }
    });
    assert.equal(reached, false);
  });

  test('a refused address reads like a host that cannot be reached', async () => {
    await assert.rejects(
      outboundRequest(get('https://name-that-does-not-exist.invalid/')),
      refusedAsUnreachable,
    );
  });

  test('an API key of this service in the headers is never sent to a third party', async () => {
    const reply = await tool(h, key, 'x402_fetch', {
      url: 'https://example.com/report',
      maxAmount: '1',
      headers: { 'x-api-key': key },
    });
    expectError(reply, 400, 'VALIDATION_ERROR');
    assert.ok(!reply.raw.includes(key), 'the key is not echoed either');
  });
});
