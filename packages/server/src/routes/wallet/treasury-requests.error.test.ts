// GET /wallet/treasury/signatures refused: 404 outside bounded mode (a hot evm treasury, like the other treasury
// routes: a change of owners too), 400 for a query the contract does not allow (page and limit, a status or a cursor of another form, an
// unknown field), 401 without a session — each with the error envelope.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { anvilAvailable } from '../../../test/support/anvil.ts';
import { type EvmWorld, evmEnv, startEvmWorld } from '../../../test/support/evm.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { call, expectError, signupUser, type TestUser } from '../../../test/support/http.ts';

const probe = await anvilAvailable();
const URL = '/api/v1/wallet/treasury/signatures';

for (const target of await storeTargets()) {
  describe(`GET ${URL} errors (${target.name})`, { skip: probe.available ? target.skip : probe.skip }, () => {
    let world: EvmWorld;
    let hot: Harness;
    let user: TestUser;
    before(async () => {
      world = await startEvmWorld();
      hot = await startHarness(target.name, 'treasury_requests_error', { env: evmEnv(world) });
      user = await signupUser(hot.app);
    });
    after(async () => {
      await hot?.close();
      await world?.anvil.stop();
    });

    test('a hot treasury has no owners to sign: 404 NOT_FOUND', async () => {
      const reply = await user.api.get(URL);
      expectError(reply, 404, 'NOT_FOUND');
      assert.match(reply.body.error.message, /bounded treasury mode only/);
    });

    test('a hot treasury has no owners to change: POST /wallet/treasury/owners is 404 NOT_FOUND', async () => {
      const reply = await user.api.post('/api/v1/wallet/treasury/owners', {
        owners: ['0x00000000000000000000000000000000000000a1'],
        threshold: 1,
      });
      expectError(reply, 404, 'NOT_FOUND');
      assert.match(reply.body.error.message, /bounded treasury mode only/);
    });

    test('without a session: 401 UNAUTHORIZED', async () => {
      expectError(await call(hot.app, 'GET', URL), 401, 'UNAUTHORIZED');
    });

    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['page=0', 'page'],
      ['status=pending', 'status'],
      ['cursor=abc', 'cursor'],
      ['cursor=12.a-b', 'cursor'],
      ['mine=1', 'mine'],
    ] as const) {
      test(`?${query}: 400 VALIDATION_ERROR naming ${field}`, async () => {
        const reply = await user.api.get(`${URL}?${query}`);
        expectError(reply, 400, 'VALIDATION_ERROR');
        assert.match(reply.body.error.message, new RegExp(field));
      });
    }

    test('the list is read-only: 405 for a method the path lacks', async () => {
      expectError(await user.api.patch(URL, {}), 405, 'METHOD_NOT_ALLOWED');
    });
  });
}
