// A metered API built only from the x402 packages' own `upto` pieces: @x402/express's paymentMiddleware over an
// x402ResourceServer with @x402/evm's upto server scheme, and a facilitator (@x402/core's x402Facilitator with
// @x402/evm's upto facilitator scheme) that verifies the Permit2 authorization and settles it on anvil through
// Permit2 and the upto proxy at their canonical addresses (test/support/permit2.ts puts them there). GET /metered
// charges what the request says it used (?use=<micro-USDC>, up to the route's maximum) through the middleware's
// settlement override. The facilitator's settling can be held back (`mode`): 'late' keeps the payment to settle
// when the test says, 'never' keeps it and never settles (both answer the buyer as if settled), 'again' answers
// 402 after the payment was verified (nothing settles).
import type { AddressInfo } from 'node:net';
import { x402Facilitator } from '@x402/core/facilitator';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { UptoEvmScheme as FacilitatorScheme } from '@x402/evm/upto/facilitator';
import { UptoEvmScheme as ServerScheme } from '@x402/evm/upto/server';
import { paymentMiddleware, setSettlementOverrides, x402ResourceServer } from '@x402/express';
import express from 'express';
import { type Address, createWalletClient, http, publicActions } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { ANVIL_MNEMONIC, anvilChain } from './anvil.ts';
import type { EvmWorld } from './evm.ts';
import { enforcePaymentIdentifier, type IdentifiedPayment } from './x402-payment-identifier.ts';

/** The facilitator pays gas from this anvil account (not the deployer, not the service). */
export const UPTO_FACILITATOR_INDEX = 6;

export type SellerMode = 'normal' | 'late' | 'never' | 'again';

type Facilitator = x402Facilitator;
type SettleArgs = Parameters<Facilitator['settle']>;

export interface UptoSeller {
  origin: string;
  payTo: Address;
  facilitator: Address;
  mode: SellerMode;
  /** Requests that carried a payment header. */
  paidRequests: number;
  /** Every payment the resource server verified, with its payment-identifier (x402-payment-identifier.ts). */
  identified: IdentifiedPayment[];
  /** The payments a 'late' or 'never' seller kept, in order: settle one with settleKept. */
  kept: Array<{ payload: SettleArgs[0]; requirements: SettleArgs[1] }>;
  /** Settles a kept payment now for `micros` (the real facilitator, on chain); its settle response. */
  settleKept(index: number, micros: bigint): ReturnType<Facilitator['settle']>;
  close(): Promise<void>;
}

/** `extensions`: what GET /metered declares (x402 v2 extensions), e.g. payment-identifier. */
export async function startUptoSeller(
  world: EvmWorld,
  payTo: Address,
  maxMicros: bigint,
  extensions?: Record<string, unknown>,
): Promise<UptoSeller> {
  const network = `eip155:${world.anvil.chainId}` as const;
  const signer = facilitatorSigner(world);
  const facilitator = new x402Facilitator().register(network, new FacilitatorScheme(signer.evm));
  const seller: UptoSeller = {
    origin: '',
    payTo,
    facilitator: signer.address,
    mode: 'normal',
    paidRequests: 0,
    identified: [],
    kept: [],
    settleKept: (index, micros) => {
      const { payload, requirements } = seller.kept[index]!;
      return facilitator.settle(payload, { ...requirements, amount: micros.toString() });
    },
    close: async () => {},
  };
  const resourceServer = new x402ResourceServer({
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle: async (payload, requirements) => {
      if (seller.mode !== 'late' && seller.mode !== 'never') return facilitator.settle(payload, requirements);
      seller.kept.push({ payload, requirements });
      // Answers as a facilitator that settles in the background would: success, no transaction yet.
      return { success: true, transaction: '', network, payer: world.treasury, amount: requirements.amount };
    },
    getSupported: async () => facilitator.getSupported() as never,
  }).register(network, new ServerScheme());
  enforcePaymentIdentifier(resourceServer, seller.identified);
  const app = express();
  app.use((req, _res, next) => {
    if (req.header('payment-signature') !== undefined) seller.paidRequests += 1;
    next();
  });
  app.use(
    paymentMiddleware(
      {
        'GET /metered': {
          accepts: {
            scheme: 'upto',
            price: { asset: world.usdc.address, amount: maxMicros.toString(), extra: {} },
            network,
            payTo,
            maxTimeoutSeconds: 60,
          },
          description: 'a metered API: pay for what you use, up to the maximum',
          ...(extensions === undefined ? {} : { extensions }),
        },
      },
      resourceServer,
    ),
  );
  app.get('/metered', (req, res) => {
    if (seller.mode === 'again') return void res.status(402).json({ error: 'pay again' });
    const use = String(req.query.use ?? maxMicros);
    setSettlementOverrides(res, { amount: use });
    res.json({ rows: 42, usedMicros: use });
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  seller.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  seller.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return seller;
}

function facilitatorSigner(world: EvmWorld) {
  const account = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: UPTO_FACILITATOR_INDEX });
  const client = createWalletClient({
    account,
    chain: anvilChain(world.anvil),
    transport: http(world.anvil.rpcUrl),
    // Anvil mines at once; viem's default 4 s poll would leave a receipt watch's timer behind the suite.
    pollingInterval: 50,
  }).extend(publicActions);
  const evm = toFacilitatorEvmSigner(Object.assign(client, { address: account.address }) as never);
  return { evm, address: account.address, client };
}
