// Paid MCP tools (contract section 13), end to end on anvil: a paid MCP server built from the protocols' own
// packages (support/paid-mcp-server.ts: mppx's MCP transport, and x402's over @x402/core), reached by
// - the SDK's withWalletPayments around the official MCP clients (1.x and v2): a paid call is paid through the
//   wallet (x402_sign / mpp_sign, under its policies and approvals) and made again once with the payment;
// - `agent-wallet mcp --upstream <url>` for a host with no SDK: the upstream's tools, each paid call paid the same way.
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type Address, getAddress } from 'viem';
import {
  AgentWalletClient,
  McpPaymentPendingError,
  PolicyDeniedError,
  withWalletPayments,
} from '../../sdk/src/index.ts';
import { ManualClock } from '../src/clock.ts';
import { createPolicy, tool, toolOk, type Wire } from './support/agent.ts';
import { anvilAvailable } from './support/anvil.ts';
import { type EvmWorld, evmEnv, fundedEvmBuyer, startEvmWorld } from './support/evm.ts';
import { assertLedgerOk } from './support/foundation.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import type { TestUser } from './support/http.ts';
import { type PaidMcpServer, startPaidMcpServer } from './support/paid-mcp-server.ts';

const CLI = resolve(import.meta.dirname, '../bin/agent-wallet.js');
const CONFIRMATIONS = 2;
const probe = await anvilAvailable();
const PAY_TO = getAddress('0x00000000000000000000000000000000005e11e6') as Address;

const textOf = (result: unknown) =>
  ((result as { content: Array<{ type: string; text: string }> }).content[0] ?? { text: '' }).text;

for (const target of await storeTargets()) {
  describe(`paid MCP tools on ${target.name}`, { skip: probe.available ? target.skip : probe.skip }, () => {
    let world: EvmWorld;
    let h: Harness;
    let paidServer: PaidMcpServer;
    let owner: TestUser;
    let walletId: string;
    let key: string;
    let baseUrl: string;
    const clients: Array<{ close(): Promise<void> }> = [];
    const history = async () =>
      toolOk(await tool(h, key, 'get_tx_history', {}), 'get_tx_history').transactions as Wire[];
    const agent = () => new AgentWalletClient({ baseUrl, apiKey: key });

    async function v1Client() {
      const client = new Client({ name: 'paid-mcp-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(paidServer.url)));
      clients.push(client);
      return client;
    }

    before(async () => {
      world = await startEvmWorld();
      paidServer = await startPaidMcpServer(world, PAY_TO, { mpp: '0.75', x402Micros: 500_000n });
      h = await startHarness(target.name, 'paid_mcp', {
        clock: new ManualClock(Date.now()),
        env: evmEnv(world, { CONFIRMATIONS: String(CONFIRMATIONS) }),
      });
      baseUrl = await h.app.listen({ port: 0, host: '127.0.0.1' });
      ({ owner, walletId, key } = await fundedEvmBuyer(h, world, {
        masterMicros: 20_000_000n,
        fund: '10',
        confirmations: CONFIRMATIONS,
      }));
    });
    after(async () => {
      for (const client of clients) await client.close().catch(() => undefined);
      await h?.close();
      await paidServer?.close();
      await world?.anvil.stop();
    });
    beforeEach(async () => {
      const policies = await owner.api.get(`/api/v1/agent-wallets/${walletId}/policies?limit=100`);
      for (const p of policies.body.data.items)
        await owner.api.delete(`/api/v1/agent-wallets/${walletId}/policies/${p.id}`);
    });

    test('the SDK wrapper pays an MPP tool and an x402 tool through the wallet, once each; a free tool is left alone', async () => {
      const client = withWalletPayments(await v1Client(), agent(), { memo: 'paid tools' });
      const paidBefore = paidServer.paid.length;
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })), 'echo: hi');
      const mpp = await client.callTool({ name: 'mpp_report', arguments: {} });
      assert.equal(textOf(mpp), 'the MPP-paid report');
      assert.ok((mpp._meta as Wire)['org.paymentauth/receipt'], 'the seller’s receipt comes back');
      const x402 = await client.callTool({ name: 'x402_report', arguments: {} });
      assert.equal(textOf(x402), 'the x402-paid report');
      assert.equal(x402.isError, undefined);
      assert.deepEqual(paidServer.paid.slice(paidBefore), [
        { tool: 'mpp_report', protocol: 'mpp' },
        { tool: 'x402_report', protocol: 'x402' },
      ]);
      const paid = (await history()).filter((t) => t.memo === 'paid tools');
      assert.deepEqual(paid.map((t) => [t.protocol, t.amount]).sort(), [
        ['mpp', '0.750000'],
        ['x402', '0.500000'],
      ]);
      await assertLedgerOk(h);
    });

    test('the v2 client is wrapped the same way', async () => {
      const client = new ClientV2({ name: 'paid-mcp-test-v2', version: '1.0.0' });
      await client.connect(new HttpV2(new URL(paidServer.url)));
      clients.push(client);
      withWalletPayments(client, agent());
      const result = await client.callTool({ name: 'mpp_report', arguments: {} });
      assert.equal(textOf(result), 'the MPP-paid report');
    });

    test('the wallet’s policies decide: a denial is the SDK’s PolicyDeniedError, an approval pending is its own error', async () => {
      const client = withWalletPayments(await v1Client(), agent());
      const paidBefore = paidServer.paid.length;
      await createPolicy(owner, walletId, 'spend_cap_per_tx', { limit: '0.5' });
      await assert.rejects(client.callTool({ name: 'mpp_report', arguments: {} }), PolicyDeniedError);
      await createPolicy(owner, walletId, 'require_approval_above', { amount: '0.1' });
      await assert.rejects(client.callTool({ name: 'x402_report', arguments: {} }), McpPaymentPendingError);
      assert.equal(paidServer.paid.length, paidBefore, 'nothing was paid');
    });

    test('agent-wallet mcp --upstream: the upstream’s tools, a paid call paid through the wallet; the key stays home', async () => {
      const client = new Client({ name: 'desktop-host', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [CLI, 'mcp', '--upstream', paidServer.url],
          env: {
            ...(process.env as Record<string, string>),
            AGENT_WALLET_API_KEY: key,
            AGENT_WALLET_URL: baseUrl,
          },
          stderr: 'ignore',
        }),
      );
      clients.push(client);
      const names = (await client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(names, ['echo', 'mpp_report', 'x402_report']);
      const paidBefore = paidServer.paid.length;
      const result = await client.callTool({ name: 'x402_report', arguments: {} });
      assert.equal(textOf(result), 'the x402-paid report');
      assert.deepEqual(paidServer.paid.slice(paidBefore), [{ tool: 'x402_report', protocol: 'x402' }]);
      const secret = key.slice('svc_live_'.length);
      assert.ok(
        paidServer.headersSeen.every((headers) => !headers.includes(secret)),
        'the agent’s key never reached the upstream',
      );
    });
  });
}
