// AgentWalletClient against a real server: every method, happy path, with the data the contract promises.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  AgentWalletClient,
  type Balance,
  type SendPaymentResult,
  type TxHistory,
  toolDefinitions,
} from '../src/index.ts';
import { externalAddress, newAgent } from './support/fixtures.ts';
import { startServer, type TestServer } from './support/server.ts';

const AMOUNT_6DP = /^(0|[1-9][0-9]*)\.[0-9]{6}$/;
const CHECKSUMMED = /^0x[0-9a-fA-F]{40}$/;

describe('AgentWalletClient', () => {
  let server: TestServer;
  before(async () => {
    server = await startServer();
  });
  after(() => server?.stop());

  test('checkBalance returns the typed balance of the key’s wallet', async () => {
    const { agent, walletId, wallet } = await newAgent(server.url, { fund: '100.5' });
    const balance: Balance = await agent.checkBalance();
    assert.deepEqual(balance, {
      walletId,
      address: wallet.address,
      balance: '100.500000',
      heldBalance: '0.000000',
      currency: 'USDC',
      frozen: false,
      dailyCapRemaining: null,
      totalCapRemaining: null,
    });
    assert.match(balance.address, CHECKSUMMED);
  });

  test('checkBalance reports remaining caps as strings when policies exist', async () => {
    const { agent, mgmt, walletId } = await newAgent(server.url);
    await mgmt.policies.create(walletId, { type: 'spend_cap_daily', params: { limit: '30' } });
    await mgmt.policies.create(walletId, { type: 'spend_cap_total', params: { limit: '50.25' } });
    await agent.sendPayment({ toAddress: externalAddress(), amount: '10' });
    const balance = await agent.checkBalance();
    assert.equal(balance.dailyCapRemaining, '20.000000');
    assert.equal(balance.totalCapRemaining, '40.250000');
    assert.equal(balance.balance, '90.000000');
  });

  test('sendPayment to an outside address completes on the sandbox rail; amounts stay strings', async () => {
    const { agent } = await newAgent(server.url);
    const to = externalAddress();
    const result: SendPaymentResult = await agent.sendPayment({
      toAddress: to,
      amount: '0.000001',
      memo: 'smallest unit',
    });
    assert.equal(result.status, 'completed');
    assert.equal(typeof result.amount, 'string');
    assert.equal(result.amount, '0.000001');
    assert.equal(result.toAddress.toLowerCase(), to);
    assert.match(result.toAddress, CHECKSUMMED);
    assert.equal(result.txHash, null);
    assert.equal(result.rejectionReason, null);
    assert.match(result.txId, /\S/);
    assert.equal((await agent.checkBalance()).balance, '99.999999');
  });

  test('sendPayment to another wallet of the service settles internally', async () => {
    const payer = await newAgent(server.url);
    const payee = await newAgent(server.url, { fund: '0' });
    const result = await payer.agent.sendPayment({ toAddress: payee.wallet.address, amount: '12.34' });
    assert.equal(result.status, 'completed');
    assert.equal((await payee.agent.checkBalance()).balance, '12.340000');
    const history = await payee.agent.getTxHistory();
    assert.equal(history.transactions[0]?.type, 'incoming');
    assert.equal(history.transactions[0]?.rail, 'internal');
  });

  test('sendPayment above an approval threshold resolves as pending and holds the amount', async () => {
    const { agent, mgmt, walletId } = await newAgent(server.url);
    await mgmt.policies.create(walletId, { type: 'require_approval_above', params: { amount: '5' } });
    const result = await agent.sendPayment({ toAddress: externalAddress(), amount: '7' });
    assert.equal(result.status, 'pending');
    const balance = await agent.checkBalance();
    assert.equal(balance.balance, '93.000000');
    assert.equal(balance.heldBalance, '7.000000');
  });

  test('sendPayment with the caller’s idempotency key twice pays once and returns the first result', async () => {
    const { agent } = await newAgent(server.url);
    const params = { toAddress: externalAddress(), amount: '3', idempotencyKey: `order-${Date.now()}` };
    const first = await agent.sendPayment(params);
    const second = await agent.sendPayment(params);
    assert.deepEqual(second, first);
    assert.equal((await agent.checkBalance()).balance, '97.000000');
  });

  test('two sendPayment calls without a key are two payments (a fresh key each)', async () => {
    const { agent } = await newAgent(server.url);
    const params = { toAddress: externalAddress(), amount: '1' };
    const a = await agent.sendPayment(params);
    const b = await agent.sendPayment(params);
    assert.notEqual(a.txId, b.txId);
    assert.equal((await agent.checkBalance()).balance, '98.000000');
  });

  test('getTxHistory pages and filters; newest first; typed transactions', async () => {
    const { agent, mgmt, walletId } = await newAgent(server.url);
    await mgmt.policies.create(walletId, { type: 'require_approval_above', params: { amount: '50' } });
    const to = externalAddress();
    await agent.sendPayment({ toAddress: to, amount: '1', memo: 'first' });
    await agent.sendPayment({ toAddress: to, amount: '2', memo: 'second' });
    await agent.sendPayment({ toAddress: to, amount: '60', memo: 'big' });

    const all: TxHistory = await agent.getTxHistory();
    assert.equal(all.total, 4); // the funding, two payments, one pending
    assert.equal(all.page, 1);
    assert.equal(all.limit, 20);
    assert.deepEqual(
      all.transactions.map((t) => [t.type, t.status, t.amount]),
      [
        ['payment', 'pending', '60.000000'],
        ['payment', 'completed', '2.000000'],
        ['payment', 'completed', '1.000000'],
        ['fund', 'completed', '100.000000'],
      ],
    );
    const tx = all.transactions[1]!;
    assert.deepEqual(Object.keys(tx).sort(), [
      'amount',
      'createdAt',
      'id',
      'memo',
      'rail',
      'resource',
      'status',
      'toAddress',
      'txHash',
      'type',
    ]);
    assert.equal(tx.memo, 'second');
    assert.equal(tx.rail, 'sandbox');
    assert.ok(!Number.isNaN(Date.parse(tx.createdAt)));

    const page2 = await agent.getTxHistory({ page: 2, limit: 3 });
    assert.equal(page2.page, 2);
    assert.equal(page2.limit, 3);
    assert.equal(page2.transactions.length, 1);
    assert.equal(page2.transactions[0]?.type, 'fund');

    const pending = await agent.getTxHistory({ status: 'pending' });
    assert.equal(pending.total, 1);
    assert.equal(pending.transactions[0]?.memo, 'big');
  });

  test('requestApproval holds the amount and answers pending with a message', async () => {
    const { agent, mgmt, walletId } = await newAgent(server.url);
    await mgmt.policies.create(walletId, { type: 'spend_cap_per_tx', params: { limit: '10' } });
    const result = await agent.requestApproval({
      toAddress: externalAddress(),
      amount: '25',
      memo: 'GPU hours',
      reason: 'the training run needs more than my cap',
    });
    assert.equal(result.status, 'pending');
    assert.equal(typeof result.message, 'string');
    const held = await mgmt.transactions.get(walletId, result.txId);
    assert.equal(held.reason, 'the training run needs more than my cap');
    assert.equal(held.violations?.[0]?.policyType, 'spend_cap_per_tx');
    assert.equal((await agent.checkBalance()).heldBalance, '25.000000');
  });

  test('checkPayment tells what sendPayment would decide, with every violation, and stores nothing', async () => {
    const { agent, mgmt, walletId } = await newAgent(server.url);
    const policy = await mgmt.policies.create(walletId, {
      type: 'spend_cap_window',
      params: { limit: '5', window: '24h' },
    });
    const to = externalAddress();
    const denied = await agent.checkPayment({ toAddress: to, amount: '6' });
    assert.equal(denied.allowed, false);
    assert.deepEqual(denied.violations, [
      {
        policyId: policy.id,
        policyType: 'spend_cap_window',
        reason: 'would pass the 24h spending cap (6.000000, limit 5.000000)',
        limit: '5.000000',
        attempted: '6.000000',
        window: '24h',
      },
    ]);
    const ok = await agent.checkPayment({ toAddress: to, amount: '5' });
    assert.equal(ok.allowed, true);
    assert.equal(ok.requiresApproval, false);
    assert.equal((await agent.getTxHistory()).transactions.filter((t) => t.type === 'payment').length, 0);
  });

  test('listTools lists every tool with scopes and JSON Schemas', async () => {
    const { agent } = await newAgent(server.url, { scopes: ['read'] });
    const { tools } = await agent.listTools();
    assert.deepEqual(
      tools.map((t) => [t.name, t.scope]),
      [
        ['check_balance', 'read'],
        ['get_tx_history', 'read'],
        ['send_payment', 'write'],
        ['request_approval', 'write'],
        ['check_payment', 'read'],
      ],
    );
    for (const tool of tools) assert.equal(tool.inputSchema.type, 'object');
    assert.deepEqual(tools, toolDefinitions(), 'the served listing is the generated one');
  });

  test('callTool calls a tool by name, as an LLM tool-use loop does', async () => {
    const { agent, walletId } = await newAgent(server.url);
    const balance = await agent.callTool('check_balance');
    assert.equal(balance.walletId, walletId);
    const paid = (await agent.callTool('send_payment', {
      toAddress: externalAddress(),
      amount: '4',
    })) as SendPaymentResult;
    assert.equal(paid.status, 'completed');
    const untyped = (await agent.callTool('get_tx_history' as string, { limit: 1 })) as TxHistory;
    assert.equal(untyped.transactions.length, 1);
  });

  test('the constructor refuses a missing API key or base URL', () => {
    assert.throws(() => new AgentWalletClient({ apiKey: '', baseUrl: server.url }), TypeError);
    assert.throws(() => new AgentWalletClient({ apiKey: 'svc_live_x', baseUrl: 'not a url' }), TypeError);
    const client = new AgentWalletClient({ apiKey: 'svc_live_x', baseUrl: `${server.url}///` });
    assert.equal(client.baseUrl, server.url);
  });

  test('amounts are never numbers anywhere in the responses', async () => {
    const { agent } = await newAgent(server.url);
    await agent.sendPayment({ toAddress: externalAddress(), amount: '1.5' });
    const balance = await agent.checkBalance();
    const history = await agent.getTxHistory();
    for (const value of [
      balance.balance,
      balance.heldBalance,
      ...history.transactions.map((t) => t.amount),
    ]) {
      assert.equal(typeof value, 'string');
      assert.match(value, AMOUNT_6DP);
    }
  });
});
