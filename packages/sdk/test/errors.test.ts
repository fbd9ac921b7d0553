// Every error class, each produced by a real server response (or a real network failure).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  AgentWalletClient,
  AgentWalletError,
  AuthenticationError,
  ConflictError,
  InsufficientBalanceError,
  InsufficientScopeError,
  isAgentWalletError,
  ManagementClient,
  NetworkError,
  NotFoundError,
  PolicyDeniedError,
  ValidationError,
  WalletFrozenError,
} from '../src/index.ts';
import {
  type Agent,
  externalAddress,
  newAgent,
  PASSWORD,
  rejection,
  uniqueEmail,
} from './support/fixtures.ts';
import { freePort, startServer, type TestServer } from './support/server.ts';

/** Asserts the error's class, code and status, and the fields every server error carries. */
function expectError<T extends AgentWalletError>(
  error: unknown,
  Class: new (...args: never[]) => T,
  code: string,
  status: number,
): T {
  assert.ok(error instanceof Class, `expected ${Class.name}, got ${String(error)}`);
  assert.ok(error instanceof AgentWalletError);
  assert.ok(isAgentWalletError(error));
  assert.equal(error.name, Class.name);
  assert.equal(error.code, code, error.message);
  assert.equal(error.status, status);
  assert.ok(error.message.length > 0);
  assert.match(error.requestId ?? '', /\S/, 'x-request-id is exposed as requestId');
  return error;
}

describe('typed errors from a real server', () => {
  let server: TestServer;
  let funded: Agent;
  before(async () => {
    server = await startServer();
    funded = await newAgent(server.url, { freshOwner: true });
  });
  after(() => server?.stop());

  describe('AuthenticationError', () => {
    test('a wrong password: INVALID_CREDENTIALS, and the client keeps no token', async () => {
      const mgmt = new ManagementClient({ baseUrl: server.url });
      const error = await rejection(() => mgmt.login({ email: funded.email, password: 'wrong password' }));
      expectError(error, AuthenticationError, 'INVALID_CREDENTIALS', 401);
      assert.equal(mgmt.token, undefined);
    });

    test('REST without a token or with a garbage token: UNAUTHORIZED', async () => {
      const anonymous = new ManagementClient({ baseUrl: server.url });
      expectError(await rejection(() => anonymous.wallet()), AuthenticationError, 'UNAUTHORIZED', 401);
      const garbage = new ManagementClient({ baseUrl: server.url, token: 'not.a.jwt' });
      expectError(await rejection(() => garbage.me()), AuthenticationError, 'UNAUTHORIZED', 401);
    });

    test('a session token used as an API key: MCP_AUTH_MISSING', async () => {
      const agent = new AgentWalletClient({ baseUrl: server.url, apiKey: funded.mgmt.token! });
      expectError(await rejection(() => agent.checkBalance()), AuthenticationError, 'MCP_AUTH_MISSING', 401);
    });

    test('an unknown key and a revoked key: MCP_AUTH_INVALID', async () => {
      const unknown = new AgentWalletClient({ baseUrl: server.url, apiKey: `svc_live_${'a'.repeat(43)}` });
      expectError(
        await rejection(() => unknown.checkBalance()),
        AuthenticationError,
        'MCP_AUTH_INVALID',
        401,
      );

      const { mgmt, walletId, apiKey, agent } = await newAgent(server.url);
      await agent.checkBalance();
      await mgmt.keys.revoke(walletId, apiKey.id);
      expectError(
        await rejection(() => agent.sendPayment({ toAddress: externalAddress(), amount: '1' })),
        AuthenticationError,
        'MCP_AUTH_INVALID',
        401,
      );
    });
  });

  test('InsufficientScopeError: a read key calling sendPayment', async () => {
    const { agent } = await newAgent(server.url, { scopes: ['read'] });
    const error = expectError(
      await rejection(() => agent.sendPayment({ toAddress: externalAddress(), amount: '1' })),
      InsufficientScopeError,
      'INSUFFICIENT_SCOPE',
      403,
    );
    assert.match(error.message, /write/);
  });

  test('WalletFrozenError: a payment from a frozen wallet; reads still work', async () => {
    const { agent, mgmt, walletId } = await newAgent(server.url);
    await mgmt.agentWallets.freeze(walletId);
    expectError(
      await rejection(() => agent.sendPayment({ toAddress: externalAddress(), amount: '1' })),
      WalletFrozenError,
      'WALLET_FROZEN',
      403,
    );
    expectError(
      await rejection(() => agent.requestApproval({ toAddress: externalAddress(), amount: '1' })),
      WalletFrozenError,
      'WALLET_FROZEN',
      403,
    );
    assert.equal((await agent.checkBalance()).frozen, true);
  });

  describe('NotFoundError', () => {
    test('an unknown agent wallet, key, policy or transaction id: NOT_FOUND', async () => {
      const { mgmt, walletId } = funded;
      expectError(await rejection(() => mgmt.agentWallets.get('wal_nope')), NotFoundError, 'NOT_FOUND', 404);
      expectError(
        await rejection(() => mgmt.keys.revoke(walletId, 'key_nope')),
        NotFoundError,
        'NOT_FOUND',
        404,
      );
      expectError(
        await rejection(() => mgmt.policies.delete(walletId, 'pol_nope')),
        NotFoundError,
        'NOT_FOUND',
        404,
      );
      expectError(
        await rejection(() => mgmt.transactions.get(walletId, 'tx_nope')),
        NotFoundError,
        'NOT_FOUND',
        404,
      );
    });

    test("another user's wallet is NOT_FOUND too", async () => {
      const other = await newAgent(server.url, { freshOwner: true });
      expectError(
        await rejection(() => funded.mgmt.agentWallets.get(other.walletId)),
        NotFoundError,
        'NOT_FOUND',
        404,
      );
    });

    test('an unknown tool: UNKNOWN_TOOL', async () => {
      expectError(
        await rejection(() => funded.agent.callTool('transfer_everything', {})),
        NotFoundError,
        'UNKNOWN_TOOL',
        404,
      );
    });
  });

  describe('ConflictError', () => {
    test('a duplicate signup: EMAIL_TAKEN', async () => {
      const email = uniqueEmail();
      await new ManagementClient({ baseUrl: server.url }).signup({ email, password: PASSWORD });
      expectError(
        await rejection(() =>
          new ManagementClient({ baseUrl: server.url }).signup({ email, password: PASSWORD }),
        ),
        ConflictError,
        'EMAIL_TAKEN',
        409,
      );
    });

    test('an idempotency key reused with other params: IDEMPOTENCY_CONFLICT', async () => {
      const key = `conflict-${Date.now()}`;
      const to = externalAddress();
      await funded.agent.sendPayment({ toAddress: to, amount: '1', idempotencyKey: key });
      const error = expectError(
        await rejection(() => funded.agent.sendPayment({ toAddress: to, amount: '2', idempotencyKey: key })),
        ConflictError,
        'IDEMPOTENCY_CONFLICT',
        409,
      );
      assert.equal(error.idempotencyKey, key);
      await funded.mgmt.agentWallets.fund(funded.walletId, { amount: '1', idempotencyKey: key });
      expectError(
        await rejection(() =>
          funded.mgmt.agentWallets.fund(funded.walletId, { amount: '2', idempotencyKey: key }),
        ),
        ConflictError,
        'IDEMPOTENCY_CONFLICT',
        409,
      );
    });

    test('approving twice: INVALID_STATE', async () => {
      const { agent, mgmt, walletId } = await newAgent(server.url);
      const held = await agent.requestApproval({ toAddress: externalAddress(), amount: '5' });
      await mgmt.transactions.approve(walletId, held.txId);
      expectError(
        await rejection(() => mgmt.transactions.approve(walletId, held.txId)),
        ConflictError,
        'INVALID_STATE',
        409,
      );
      expectError(
        await rejection(() => mgmt.transactions.reject(walletId, held.txId)),
        ConflictError,
        'INVALID_STATE',
        409,
      );
    });
  });

  describe('ValidationError', () => {
    test('bad amounts: VALIDATION_ERROR with a message saying what is wrong', async () => {
      for (const amount of ['1.0000001', '-1', '007', '.5', '1e3', '0']) {
        const error = expectError(
          await rejection(() => funded.agent.sendPayment({ toAddress: externalAddress(), amount })),
          ValidationError,
          'VALIDATION_ERROR',
          400,
        );
        assert.match(error.message, /amount/, `${amount}: ${error.message}`);
      }
      // A JavaScript caller passing a number: the SDK sends it as is and the server refuses it.
      expectError(
        await rejection(() => funded.mgmt.sandboxDeposit(10 as unknown as string)),
        ValidationError,
        'VALIDATION_ERROR',
        400,
      );
    });

    test('a bad address, a bad page limit, and a too-short password', async () => {
      expectError(
        await rejection(() => funded.agent.sendPayment({ toAddress: '0x123', amount: '1' })),
        ValidationError,
        'VALIDATION_ERROR',
        400,
      );
      expectError(
        await rejection(() => funded.agent.getTxHistory({ limit: 101 })),
        ValidationError,
        'VALIDATION_ERROR',
        400,
      );
      expectError(
        await rejection(() => funded.mgmt.agentWallets.list({ limit: 0 })),
        ValidationError,
        'VALIDATION_ERROR',
        400,
      );
      expectError(
        await rejection(() =>
          new ManagementClient({ baseUrl: server.url }).signup({ email: uniqueEmail(), password: 'short' }),
        ),
        ValidationError,
        'VALIDATION_ERROR',
        400,
      );
    });

    test('a body over 64 KiB: PAYLOAD_TOO_LARGE', async () => {
      expectError(
        await rejection(() => funded.mgmt.agentWallets.create({ label: 'x'.repeat(70_000) })),
        ValidationError,
        'PAYLOAD_TOO_LARGE',
        413,
      );
    });
  });

  test('PolicyDeniedError: every violation, and the rejected transaction’s txId', async () => {
    const { agent, mgmt, walletId } = await newAgent(server.url);
    const cap = await mgmt.policies.create(walletId, { type: 'spend_cap_per_tx', params: { limit: '10' } });
    const list = await mgmt.policies.create(walletId, {
      type: 'address_allowlist',
      params: { addresses: [externalAddress()] },
    });
    const error = expectError(
      await rejection(() => agent.sendPayment({ toAddress: externalAddress(), amount: '25' })),
      PolicyDeniedError,
      'POLICY_DENIED',
      422,
    );
    assert.deepEqual(
      error.violations.map((v) => [v.policyId, v.policyType]).sort(),
      [
        [cap.id, 'spend_cap_per_tx'],
        [list.id, 'address_allowlist'],
      ].sort(),
    );
    for (const v of error.violations) assert.match(v.reason, /\S/);
    assert.deepEqual(error.details.violations, error.violations);
    assert.equal(typeof error.txId, 'string');
    assert.deepEqual(error.data, { txId: error.txId, status: 'rejected' });
    const recorded = await mgmt.transactions.get(walletId, error.txId!);
    assert.equal(recorded.status, 'rejected');
    assert.equal((await agent.checkBalance()).balance, '100.000000');
  });

  test('InsufficientBalanceError: paying more than the available balance', async () => {
    const { agent, mgmt, walletId } = await newAgent(server.url, { fund: '10' });
    expectError(
      await rejection(() => agent.sendPayment({ toAddress: externalAddress(), amount: '10.000001' })),
      InsufficientBalanceError,
      'INSUFFICIENT_BALANCE',
      422,
    );
    expectError(
      await rejection(() => mgmt.agentWallets.withdraw(walletId, { amount: '11' })),
      InsufficientBalanceError,
      'INSUFFICIENT_BALANCE',
      422,
    );
  });

  describe('NetworkError', () => {
    test('nothing listening on the port: NETWORK_ERROR with the cause', async () => {
      const port = await freePort();
      const agent = new AgentWalletClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'svc_live_x' });
      const error = await rejection(() => agent.sendPayment({ toAddress: externalAddress(), amount: '1' }));
      assert.ok(error instanceof NetworkError, String(error));
      assert.ok(isAgentWalletError(error));
      assert.equal(error.code, 'NETWORK_ERROR');
      assert.equal(error.status, undefined);
      assert.equal(error.timedOut, false);
      assert.ok(error.cause instanceof Error);
      assert.match(error.message, /ECONNREFUSED|fetch failed/);
      assert.match(
        error.idempotencyKey ?? '',
        /^[0-9a-f-]{36}$/,
        'the generated key is exposed to retry with',
      );
    });

    test('the server killed mid-session: NETWORK_ERROR', async () => {
      const doomed = await startServer();
      const { agent } = await newAgent(doomed.url);
      await agent.checkBalance();
      await doomed.stop();
      const error = await rejection(() => agent.checkBalance());
      assert.ok(error instanceof NetworkError, String(error));
      assert.equal(error.code, 'NETWORK_ERROR');
    });
  });

  test('isAgentWalletError is false for anything else', () => {
    assert.equal(isAgentWalletError(new Error('x')), false);
    assert.equal(isAgentWalletError(null), false);
    assert.equal(isAgentWalletError({ code: 'NOT_FOUND' }), false);
  });
});
