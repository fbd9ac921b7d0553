// A paid MCP server, built from the protocols' own packages: the official 1.x MCP SDK over Streamable HTTP
// (stateless), with
// - `mpp_report`: charged by MPP over MCP with mppx's primitives (JSON-RPC -32042 with `data.challenges`; the
//   credential in `_meta["org.paymentauth/credential"]`; settled on anvil by the seller itself);
// - `x402_report`: charged by x402's MCP transport (a result with `isError` and the payment requirements as
//   `structuredContent`; the payment in `_meta["x402/payment"]`), verified and settled with @x402/core's
//   resource server and facilitator (@x402/evm's exact scheme) on anvil;
// - `echo`: free.
// It logs every tool call it answers with a payment, so tests can say what was paid and how.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { x402Facilitator } from '@x402/core/facilitator';
import { x402ResourceServer } from '@x402/core/server';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme as FacilitatorScheme } from '@x402/evm/exact/facilitator';
import { ExactEvmScheme as ServerScheme } from '@x402/evm/exact/server';
import { Challenge, Credential, Receipt } from 'mppx';
import { challengeHash } from 'mppx/evm';
import { type Address, getAddress, type Hex, parseUnits, recoverTypedDataAddress } from 'viem';
import { z } from 'zod';
import { transferWithAuthorizationTypes } from '../../src/chain/token.ts';
import type { EvmWorld } from './evm.ts';
import { sellerGasClient, settleAuthorization } from './mpp-seller.ts';

/** Gas for settlements: anvil accounts of their own (not the deployer, the service or the other sellers). */
const MPP_GAS_INDEX = 5;
const FACILITATOR_INDEX = 4;

export interface PaidMcpServer {
  /** http://127.0.0.1:<port>/mcp */
  url: string;
  /** Paid calls it answered: the tool and the protocol. */
  paid: Array<{ tool: string; protocol: 'mpp' | 'x402' }>;
  /** Every request's headers as received, so a test can say what a client sent it. */
  headersSeen: string[];
  close(): Promise<void>;
}

export interface PaidMcpPrices {
  /** `mpp_report`, as a decimal USDC string. */
  mpp: string;
  /** `x402_report`, in micro-USDC. */
  x402Micros: bigint;
}

/**
 * MPP over MCP from mppx's own primitives (its evm charge method binds an HTTP transport in 0.11): the challenge
 * (HMAC-bound id), the credential read back from `_meta`, its EIP-3009 authorization checked and settled on anvil,
 * the receipt in `_meta["org.paymentauth/receipt"]`.
 */
function mppCharging(world: EvmWorld, payTo: Address, price: string) {
  const client = sellerGasClient(world, MPP_GAS_INDEX);
  const secretKey = 'paid-mcp-test-secret-key-of-32-bytes!!';
  const challengeNow = () =>
    Challenge.from({
      realm: 'paid-tools.test',
      method: 'evm',
      intent: 'charge',
      expires: new Date(Date.now() + 120_000).toISOString(),
      request: {
        amount: parseUnits(price, 6).toString(),
        currency: world.usdc.address,
        recipient: payTo,
        methodDetails: { chainId: world.anvil.chainId, credentialTypes: ['authorization'], decimals: 6 },
      },
      secretKey,
    } as never);
  return async (meta: Record<string, unknown> | undefined) => {
    const given = meta?.['org.paymentauth/credential'];
    if (given === undefined) {
      throw new McpError(-32042, 'Payment Required', { httpStatus: 402, challenges: [challengeNow()] });
    }
    const credential = Credential.deserialize(Credential.serialize(given as never));
    const { challenge } = credential;
    const payload = credential.payload as Record<string, string>;
    const request = challenge.request as { amount: string; recipient: string };
    const valid =
      Challenge.verify(challenge, { secretKey }) &&
      payload.nonce === challengeHash(challenge) &&
      payload.value === request.amount &&
      getAddress(payload.to!) === getAddress(request.recipient) &&
      getAddress(
        await recoverTypedDataAddress({
          domain: {
            name: 'USD Coin',
            version: '2',
            chainId: world.anvil.chainId,
            verifyingContract: world.usdc.address,
          },
          types: transferWithAuthorizationTypes,
          primaryType: 'TransferWithAuthorization',
          message: {
            from: payload.from as Address,
            to: payload.to as Address,
            value: BigInt(payload.value!),
            validAfter: BigInt(payload.validAfter!),
            validBefore: BigInt(payload.validBefore!),
            nonce: payload.nonce as Hex,
          },
          signature: payload.signature as Hex,
        }),
      ) === getAddress(payload.from!);
    if (!valid) throw new McpError(-32043, 'Payment verification failed', { challenges: [challengeNow()] });
    const hash = await settleAuthorization(client, world, payload);
    return Receipt.from({
      method: 'evm',
      reference: hash,
      status: 'success',
      timestamp: new Date().toISOString(),
    });
  };
}

async function x402Charging(world: EvmWorld) {
  const network = `eip155:${world.anvil.chainId}` as const;
  const signer = sellerGasClient(world, FACILITATOR_INDEX);
  const facilitator = new x402Facilitator().register(
    network,
    new FacilitatorScheme(
      toFacilitatorEvmSigner(Object.assign(signer, { address: signer.account.address }) as never),
    ),
  );
  const resourceServer = new x402ResourceServer({
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle: (payload, requirements) => facilitator.settle(payload, requirements),
    getSupported: async () => facilitator.getSupported() as never,
  }).register(network, new ServerScheme());
  await resourceServer.initialize();
  return { network, resourceServer };
}

export async function startPaidMcpServer(
  world: EvmWorld,
  payTo: Address,
  prices: PaidMcpPrices,
): Promise<PaidMcpServer> {
  const mpp = mppCharging(world, payTo, prices.mpp);
  const x402 = await x402Charging(world);
  const paid: PaidMcpServer['paid'] = [];
  const requirements = () =>
    x402.resourceServer.buildPaymentRequirements({
      scheme: 'exact',
      network: x402.network,
      payTo,
      price: {
        asset: world.usdc.address,
        amount: prices.x402Micros.toString(),
        extra: { name: 'USD Coin', version: '2' },
      },
      maxTimeoutSeconds: 60,
    } as never);
  const resource = {
    url: 'mcp://tool/x402_report',
    description: 'a paid report',
    mimeType: 'application/json',
  };

  function mcpServer() {
    const server = new McpServer({ name: 'paid-test-server', version: '1.0.0' });
    server.registerTool(
      'echo',
      { description: 'free', inputSchema: { text: z.string() } },
      async ({ text }) => ({
        content: [{ type: 'text', text: `echo: ${text}` }],
      }),
    );
    server.registerTool('mpp_report', { description: 'a report paid by MPP' }, async (extra) => {
      const receipt = await mpp(extra._meta as Record<string, unknown> | undefined);
      paid.push({ tool: 'mpp_report', protocol: 'mpp' });
      return {
        content: [{ type: 'text', text: 'the MPP-paid report' }],
        _meta: { 'org.paymentauth/receipt': receipt as never },
      };
    });
    server.registerTool('x402_report', { description: 'a report paid by x402' }, async (extra) => {
      const offered = await requirements();
      const payment = (extra._meta as Record<string, unknown> | undefined)?.['x402/payment'];
      if (payment === undefined) {
        const required = await x402.resourceServer.createPaymentRequiredResponse(offered, resource);
        return {
          isError: true,
          structuredContent: required as never,
          content: [{ type: 'text', text: JSON.stringify(required) }],
        };
      }
      const matched = x402.resourceServer.findMatchingRequirements(offered, payment as never);
      if (matched === undefined)
        return { isError: true, content: [{ type: 'text', text: 'no matching requirement' }] };
      const verified = await x402.resourceServer.verifyPayment(payment as never, matched);
      if (!verified.isValid)
        return { isError: true, content: [{ type: 'text', text: `invalid: ${verified.invalidReason}` }] };
      const settled = await x402.resourceServer.settlePayment(payment as never, matched);
      paid.push({ tool: 'x402_report', protocol: 'x402' });
      return {
        content: [{ type: 'text', text: 'the x402-paid report' }],
        _meta: { 'x402/payment-response': settled as never },
      };
    });
    return server;
  }

  const headersSeen: string[] = [];
  const httpServer = createServer((req, res) => {
    headersSeen.push(JSON.stringify(req.headers));
    void (async () => {
      const body = await readJson(req);
      // Stateless: a server and a transport per request, as the SDK's examples do.
      const server = mcpServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    })().catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  httpServer.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => httpServer.once('listening', () => resolve()));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    paid,
    headersSeen,
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(() => resolve());
      }),
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : JSON.parse(text);
}
