import { after, before, describe, test } from 'node:test';
import {
  agentState,
  agentWithKey,
  assertAgentStateUnchanged,
  breakChecksum,
  EXTERNAL,
  policiesUrl,
} from '../../../test/support/agent.ts';
import { eip55, expectValidation } from '../../../test/support/foundation.ts';
import { type Harness, startHarness, storeTargets } from '../../../test/support/harness.ts';
import { expectError } from '../../../test/support/http.ts';

const BAD_LIMITS: ReadonlyArray<unknown> = [
  'abc',
  '-1',
  '0',
  '0.000000',
  '1.0000001',
  '1e3',
  '.5',
  '1.',
  '007',
  '',
  ' 5',
  '1000000000.000001',
  10,
  10.5,
  null,
  true,
  ['5'],
];

for (const target of await storeTargets()) {
  describe(`POST /agent-wallets/:walletId/policies error (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'policies_create_error');
    });
    after(() => h.close());

    test('an unknown, missing or ill-typed type is a 400 naming type', async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      for (const type of ['spend_cap_weekly', 'SPEND_CAP_PER_TX', '', 5, null, undefined]) {
        const body = type === undefined ? { params: { limit: '5' } } : { type, params: { limit: '5' } };
        expectValidation(await agent.user.api.post(policiesUrl(agent.walletId), body), 'type');
      }
      await assertAgentStateUnchanged(h, state, 'a bad type');
    });

    test('missing params, or params that are not an object, is a 400 naming params', async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      for (const params of [undefined, null, '5', 5, [], ['5']]) {
        const body =
          params === undefined ? { type: 'spend_cap_per_tx' } : { type: 'spend_cap_per_tx', params };
        expectValidation(await agent.user.api.post(policiesUrl(agent.walletId), body), 'params');
      }
      await assertAgentStateUnchanged(h, state, 'bad params');
    });

    test('caps: every bad limit is a 400 naming params.limit', async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      for (const type of ['spend_cap_per_tx', 'spend_cap_daily', 'spend_cap_total']) {
        expectValidation(
          await agent.user.api.post(policiesUrl(agent.walletId), { type, params: {} }),
          'params.limit',
        );
        for (const limit of BAD_LIMITS) {
          const reply = await agent.user.api.post(policiesUrl(agent.walletId), { type, params: { limit } });
          expectValidation(reply, 'params.limit');
        }
      }
      await assertAgentStateUnchanged(h, state, 'a bad limit');
    });

    test('require_approval_above: a bad amount is a 400 naming params.amount', async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      const url = policiesUrl(agent.walletId);
      expectValidation(
        await agent.user.api.post(url, { type: 'require_approval_above', params: {} }),
        'params.amount',
      );
      for (const amount of BAD_LIMITS) {
        const reply = await agent.user.api.post(url, { type: 'require_approval_above', params: { amount } });
        expectValidation(reply, 'params.amount');
      }
      await assertAgentStateUnchanged(h, state, 'a bad amount');
    });

    test('params of another type, or extra params fields, are a 400 naming the field', async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      const url = policiesUrl(agent.walletId);
      const cases: Array<[string, unknown, string]> = [
        ['spend_cap_per_tx', { amount: '5' }, 'params.amount'],
        ['spend_cap_daily', { limit: '5', window: '24h' }, 'params.window'],
        ['spend_cap_total', { addresses: [EXTERNAL] }, 'params.addresses'],
        ['require_approval_above', { limit: '5' }, 'params.limit'],
        ['address_allowlist', { limit: '5' }, 'params.limit'],
        ['address_allowlist', { addresses: [EXTERNAL], mode: 'deny' }, 'params.mode'],
      ];
      for (const [type, params, field] of cases) {
        expectValidation(await agent.user.api.post(url, { type, params }), field);
      }
      await assertAgentStateUnchanged(h, state, 'mismatched params');
    });

    test('allowlist: empty, missing, not a list, or a bad address is a 400 naming params.addresses', async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      const url = policiesUrl(agent.walletId);
      const bad: unknown[] = [
        undefined,
        [],
        EXTERNAL,
        [''],
        ['0x123'],
        [`0x${'g'.repeat(40)}`],
        [EXTERNAL.slice(2)],
        [`${EXTERNAL}00`],
        [breakChecksum(eip55(EXTERNAL))],
        [EXTERNAL, breakChecksum(eip55(`0x${'12ab'.repeat(10)}`))],
        [123],
        [null],
        Array.from({ length: 1001 }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`),
      ];
      for (const addresses of bad) {
        const params = addresses === undefined ? {} : { addresses };
        expectValidation(
          await agent.user.api.post(url, { type: 'address_allowlist', params }),
          'params.addresses',
        );
      }
      await assertAgentStateUnchanged(h, state, 'a bad allowlist');
    });

    test('unknown top-level fields are a 400 (no mass assignment)', async () => {
      const agent = await agentWithKey(h);
      const state = await agentState(h);
      for (const [field, value] of Object.entries({
        active: false,
        walletId: 'wal_x',
        id: 'pol_x',
        limit: '5',
      })) {
        const reply = await agent.user.api.post(policiesUrl(agent.walletId), {
          type: 'spend_cap_per_tx',
          params: { limit: '5' },
          [field]: value,
        });
        expectValidation(reply, field, /unknown/);
      }
      for (const body of ['[]', '"x"', '{"type":']) {
        expectError(await agent.user.api.post(policiesUrl(agent.walletId), body), 400, 'VALIDATION_ERROR');
      }
      await assertAgentStateUnchanged(h, state, 'an unknown field');
    });

    test('an unknown wallet or the master wallet is a 404 NOT_FOUND', async () => {
      const agent = await agentWithKey(h);
      const master = await agent.user.api.get('/api/v1/wallet');
      const state = await agentState(h);
      const body = { type: 'spend_cap_per_tx', params: { limit: '5' } };
      expectError(await agent.user.api.post(policiesUrl('wal_nope'), body), 404, 'NOT_FOUND');
      expectError(await agent.user.api.post(policiesUrl(master.body.data.id), body), 404, 'NOT_FOUND');
      await assertAgentStateUnchanged(h, state, 'an unknown wallet');
    });
  });
}
