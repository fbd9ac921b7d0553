// The other side of x402, built only from the protocol's own packages: a paid HTTP API (@x402/express's
// paymentMiddleware over an x402ResourceServer with @x402/evm's exact scheme) and its facilitator
// (@x402/core's x402Facilitator with @x402/evm's exact facilitator scheme), which verifies the authorization and
// settles it on anvil from an anvil-funded account. The seller logs every request it sees, with or without a
// payment header, so tests can say what the upstream was asked. GET /identified and /identified-required cost what
// /report costs and declare x402's payment-identifier extension (optional, required): every payment verified is
// logged with the id it carried (x402-payment-identifier.ts).
import type { AddressInfo } from 'node:net';
import { x402Facilitator } from '@x402/core/facilitator';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme as FacilitatorScheme } from '@x402/evm/exact/facilitator';
import { ExactEvmScheme as ServerScheme } from '@x402/evm/exact/server';
import { paymentMiddleware, x402ResourceServer } from '@x402/express';
import express from 'express';
import { type Address, createWalletClient, http, publicActions } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { ANVIL_MNEMONIC, anvilChain } from './anvil.ts';
import type { EvmWorld } from './evm.ts';
import {
  enforcePaymentIdentifier,
  type IdentifiedPayment,
  paymentIdentifierDeclared,
} from './x402-payment-identifier.ts';

/** The facilitator pays gas from this anvil account (not the deployer, not the service). */
const FACILITATOR_INDEX = 7;

export interface SellerRequest {
  method: string;
  path: string;
  paid: boolean;
  /** The Authorization header it carried, if any. */
  authorization: string | undefined;
}

export interface Seller {
  /** http://127.0.0.1:<port> */
  origin: string;
  payTo: Address;
  requests: SellerRequest[];
  /** Requests that carried a payment header. */
  paidRequests(): SellerRequest[];
  /** Every payment the resource server verified, with its payment-identifier. */
  identified: IdentifiedPayment[];
  close(): Promise<void>;
}

export interface SellerPrices {
  /** GET /report */
  reportMicros: bigint;
  /** POST /echo */
  echoMicros: bigint;
}

export async function startSeller(world: EvmWorld, payTo: Address, prices: SellerPrices): Promise<Seller> {
  const network = `eip155:${world.anvil.chainId}` as const;
  const facilitator = new x402Facilitator().register(
    network,
    new FacilitatorScheme(facilitatorSigner(world)),
  );
  // In-process: the resource server talks to the facilitator object instead of over HTTP.
  const resourceServer = new x402ResourceServer({
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle: (payload, requirements) => facilitator.settle(payload, requirements),
    getSupported: async () => facilitator.getSupported() as never,
  }).register(network, new ServerScheme());
  const identified: IdentifiedPayment[] = [];
  enforcePaymentIdentifier(resourceServer, identified);
  const price = (micros: bigint) => ({
    asset: world.usdc.address,
    amount: micros.toString(),
    extra: { name: 'USD Coin', version: '2' },
  });
  const accepts = (micros: bigint) => ({
    scheme: 'exact',
    price: price(micros),
    network,
    payTo,
    maxTimeoutSeconds: 60,
  });
  const requests: SellerRequest[] = [];
  const app = express();
  app.use((req, _res, next) => {
    const paid = req.header('payment-signature') !== undefined || req.header('x-payment') !== undefined;
    requests.push({ method: req.method, path: req.path, paid, authorization: req.header('authorization') });
    next();
  });
  app.use(
    paymentMiddleware(
      {
        'GET /report': { accepts: accepts(prices.reportMicros), description: 'a paid report' },
        'POST /echo': { accepts: accepts(prices.echoMicros), description: 'a paid echo' },
        'GET /identified': {
          accepts: accepts(prices.reportMicros),
          description: 'a paid report; a payment identifier is welcome',
          extensions: paymentIdentifierDeclared(false),
        },
        'GET /identified-required': {
          accepts: accepts(prices.reportMicros),
          description: 'a paid report; a payment identifier is required',
          extensions: paymentIdentifierDeclared(true),
        },
      },
      resourceServer,
    ),
  );
  app.use(express.text({ type: '*/*' }));
  app.get('/report', (_req, res) => void res.json({ report: 'the paid content', lines: 3 }));
  app.get(['/identified', '/identified-required'], (req, res) => void res.json({ report: req.path }));
  app.post('/echo', (req, res) => void res.type('text/plain').send(`echo: ${String(req.body)}`));
  app.get('/free', (_req, res) => void res.json({ free: true }));
  app.get('/redirect', (_req, res) => void res.redirect(302, 'http://10.255.255.1/internal'));
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    payTo,
    requests,
    paidRequests: () => requests.filter((r) => r.paid),
    identified,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function facilitatorSigner(world: EvmWorld) {
  const account = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: FACILITATOR_INDEX });
  const client = createWalletClient({
    account,
    chain: anvilChain(world.anvil),
    transport: http(world.anvil.rpcUrl),
    // Anvil mines at once; viem's default 4 s poll would leave a receipt watch's timer behind the suite.
    pollingInterval: 50,
  }).extend(publicActions);
  return toFacilitatorEvmSigner(Object.assign(client, { address: account.address }) as never);
}
