// What an agent puts in x402_fetch's request (outside findings 6 and 7). A header name that is no token, or a
// value with CR, LF, NUL or a character outside visible ASCII, was a 500 with an error-level stack in the log;
// it is a 400 naming the header. And the agent's own key went out in the URL (query or path) or the body, or in a
// header in another case (`svc_LIVE_…`): refused like a key in a header, before anything is asked. An upstream
// on this machine counts what reaches it.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { createKey, tool } from './support/agent.ts';
import { anvilAvailable } from './support/anvil.ts';
import { type EvmWorld, evmEnv, startEvmWorld } from './support/evm.ts';
import { type Harness, startHarness } from './support/harness.ts';
import { call, expectError, type Reply, signupUser } from './support/http.ts';

const probe = await anvilAvailable();
const PINO_ERROR = 50;

describe('x402_fetch checks the request it makes', { skip: probe.available ? false : probe.skip }, () => {
  let world: EvmWorld;
  let h: Harness;
  let key: string;
  let origin: string;
  const seen: IncomingMessage[] = [];
  const logLines: string[] = [];
  const upstream = createServer((req, res) => {
    seen.push(req);
    req.resume();
    res.end('free content');
  });

  before(async () => {
    world = await startEvmWorld();
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    h = await startHarness('sqlite', 'x402-input', {
      env: evmEnv(world, { X402_ALLOW_PRIVATE: 'true' }),
      logTo: sink,
    });
    const owner = await signupUser(h.app);
    const wallet = await owner.api.post('/api/v1/agent-wallets', { label: 'buyer' });
    key = (await createKey(owner, wallet.body.data.id, { label: 'k' })).key;
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });
  after(async () => {
    await h?.close();
    await new Promise((resolve) => upstream.close(resolve));
    await world?.anvil.stop();
  });

  const fetchWith = (params: Record<string, unknown>) =>
    tool(h, key, 'x402_fetch', { url: `${origin}/free`, maxAmount: '1', ...params });

  /** A 400 VALIDATION_ERROR whose message matches, that reached nobody, echoes no secret and logs no error. */
  async function expectRefused(reply: Reply, message: RegExp, secrets: readonly string[] = []) {
    const linesBefore = logLines.length;
    expectError(reply, 400, 'VALIDATION_ERROR');
    assert.match(reply.body.error.message, message);
    for (const secret of secrets) assert.ok(!reply.raw.includes(secret), `echoed: ${reply.raw}`);
    assert.equal(seen.length, 0, 'nothing reached the upstream');
    await new Promise((resolve) => setImmediate(resolve));
    const errors = logLines
      .slice(linesBefore)
      .filter((l) => (JSON.parse(l) as { level: number }).level >= PINO_ERROR);
    assert.deepEqual(errors, [], 'nothing is logged at error level');
  }

  test('a clean request reaches the upstream (the guard is not in the way)', async () => {
    const reply = await fetchWith({ headers: { 'X-Note': 'hello\tworld ~!' } });
    assert.equal(reply.status, 200, reply.raw);
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.headers['x-note'], 'hello\tworld ~!');
    seen.length = 0;
  });

  for (const [what, value] of [
    ['CR LF (a second header smuggled in)', 'token-7f3a\r\nX-Injected: 1'],
    ['a lone LF', 'token-7f3a\nmore'],
    ['a lone CR', 'token-7f3a\rmore'],
    ['NUL', 'token-7f3a\u0000more'],
    ['a character outside Latin-1', 'token-7f3a \u20ac'],
    ['a Latin-1 letter (not ASCII)', 'token-7f3a caf\u00e9'],
  ] as const) {
    test(`a header value with ${what}: 400 naming the header, never the value`, async () => {
      const reply = await fetchWith({ headers: { accept: 'text/plain', 'X-Secret-Token': value } });
      await expectRefused(reply, /^headers\.X-Secret-Token must be visible ASCII/, ['token-7f3a']);
    });
  }

  for (const name of ['x note', 'x:y', 'x\r\ny', 'na\u00efve', '']) {
    test(`a header name ${JSON.stringify(name)}: 400 naming it, escaped`, async () => {
      const reply = await fetchWith({ headers: { [name]: 'v' } });
      await expectRefused(reply, /^headers: ".*" is not a header name \(an RFC 9110 token/);
      assert.ok(reply.body.error.message.includes(JSON.stringify(name)), reply.body.error.message);
    });
  }

  test('a key sent as a header name is not echoed back', async () => {
    const reply = await fetchWith({ headers: { [`${key}:`]: 'v' } });
    await expectRefused(reply, /^headers: "\[redacted\]/, [key.slice(9)]);
  });

  const recased = () => `svc_LIVE_${key.slice('svc_live_'.length)}`;
  const random = () => key.slice('svc_live_'.length);

  test('the key in a header, in another case: refused', async () => {
    const reply = await fetchWith({ headers: { 'X-Api-Key': recased() } });
    await expectRefused(reply, /^headers: x-api-key carries an API key of this service; it is never sent/, [
      random(),
    ]);
  });

  for (const [where, url] of [
    ['the query', () => `${origin}/free?api_key=${key}`],
    ['the query, recased', () => `${origin}/free?api_key=${recased()}`],
    ['the query, percent-encoded', () => `${origin}/free?api_key=%73vc%5Flive%5F${random()}`],
    ['the path', () => `${origin}/keys/${key}/free`],
    ['the query, without its prefix (the caller’s own key)', () => `${origin}/free?t=${random()}`],
  ] as const) {
    test(`the key in ${where}: refused`, async () => {
      const reply = await fetchWith({ url: url() });
      await expectRefused(reply, /^url carries an API key of this service; it is never sent/, [random()]);
    });
  }

  for (const [what, body] of [
    ['in JSON', () => JSON.stringify({ apiKey: key })],
    ['recased, in a form', () => `api_key=${recased()}`],
    ['JSON-escaped', () => `{"k":"\\u0073vc_live_${random()}"}`],
    ['without its prefix (the caller’s own key)', () => JSON.stringify({ token: random() })],
  ] as const) {
    test(`the key in the body, ${what}: refused`, async () => {
      const reply = await fetchWith({ method: 'POST', body: body() });
      await expectRefused(reply, /^body carries an API key of this service; it is never sent/, [random()]);
    });
  }

  test('over MCP too: the caller’s own key without its prefix is refused', async () => {
    const reply = await call(
      h.app,
      'POST',
      '/mcp',
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'x402_fetch',
          arguments: { url: `${origin}/free?t=${random()}`, maxAmount: '1', idempotencyKey: 'mcp-leak' },
        },
      },
      { token: key, headers: { accept: 'application/json, text/event-stream' } },
    );
    assert.equal(reply.status, 200, reply.raw);
    assert.equal(reply.body.result.isError, true, reply.raw);
    assert.match(reply.body.result.content[0].text, /^VALIDATION_ERROR: url carries an API key/);
    assert.equal(seen.length, 0, 'nothing reached the upstream');
  });
});
