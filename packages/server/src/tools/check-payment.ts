import { z } from 'zod';
import { success } from '../domain/outcome.ts';
import { merchantHostOf } from '../domain/policies/policies.ts';
import { AppError, invalid } from '../errors.ts';
import { addressSchema, amountSchema } from '../http/schemas.ts';
import { requiredOf } from '../payments/x402-exact/protocol.ts';
import type { FaceServices } from '../services/index.ts';
import type { ToolDefinition } from './definition.ts';
import { CHALLENGE_LENGTH_MAX, challengeOf } from './mpp-sign.ts';
import { optionalParam } from './optional-param.ts';
import { checkPaymentOutput } from './outputs.ts';
import { PAYMENT_REQUIREMENTS_TEXT, paymentRequirementsParam, requirementsOf } from './x402-common.ts';

const ADDRESS_TEXT = 'recipient EVM address (0x + 40 hex; mixed case must carry its EIP-55 checksum)';
const EVM_TEXT =
  ' Instead of toAddress and amount (give those null) it also takes an x402 402’s paymentRequirements, judged as ' +
  'x402_fetch would pay it, or an MPP challenge, judged as mpp_sign would pay it (merchant lists included).';
const CHALLENGE_TEXT =
  'instead of toAddress and amount (evm rail): an MPP challenge (a 402’s WWW-Authenticate value, or the challenge ' +
  'object as JSON text); judged as mpp_sign would pay it';

const input = z.strictObject({
  toAddress: optionalParam(addressSchema).describe(ADDRESS_TEXT),
  amount: optionalParam(amountSchema),
  paymentRequirements: optionalParam(paymentRequirementsParam).describe(
    'instead of toAddress and amount (evm rail): what an x402 seller’s 402 offered, as an object or as JSON text; judged as x402_fetch would pay it',
  ),
  challenge: optionalParam(
    z.union([z.string().min(1).max(CHALLENGE_LENGTH_MAX), z.record(z.string(), z.unknown())]),
  ).describe(CHALLENGE_TEXT),
});

// What models are shown. paymentRequirements only where it can be paid (the evm rail), and as JSON text: the
// seller's open object is refused by OpenAI's strict mode. Elsewhere toAddress and amount are plainly required.
const publishedInput = z.strictObject({
  toAddress: addressSchema.describe(ADDRESS_TEXT),
  amount: amountSchema,
});
const publishedEvmInput = z.strictObject({
  toAddress: optionalParam(addressSchema).describe(`${ADDRESS_TEXT}; null with paymentRequirements`),
  amount: optionalParam(amountSchema).describe(
    'USDC amount as a decimal string, above 0 and at most 1000000000, up to 6 decimals; null with paymentRequirements',
  ),
  paymentRequirements: optionalParam(z.string()).describe(
    `instead of toAddress and amount: ${PAYMENT_REQUIREMENTS_TEXT}; null with toAddress and amount`,
  ),
  challenge: optionalParam(z.string().min(1).max(CHALLENGE_LENGTH_MAX)).describe(
    `${CHALLENGE_TEXT}; null with toAddress and amount`,
  ),
});

/** JSON Schema of a param's non-null values, for the rule across params below. */
const present = (schema: z.ZodType) => {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  return json;
};

type Input = z.output<typeof input>;

const DESCRIPTION =
  'Dry run of send_payment: whether a payment of this amount to this address would go through now ' +
  '(allowed), would wait for the owner (requiresApproval), or would be denied — with every violated policy ' +
  '(violations: policyId, policyType, reason, limit, attempted, window), the balance after, and the room left ' +
  'under the daily and total caps (and, when one is set, the tightest calendar budget with when it resets). ' +
  'Nothing is paid, held or stored.';

export const checkPaymentTool: ToolDefinition<Input> = {
  name: 'check_payment',
  scope: 'read',
  description: `${DESCRIPTION} On the evm rail it also takes an x402 402’s paymentRequirements instead.`,
  input,
  published: (rail) =>
    rail === 'evm'
      ? { input: publishedEvmInput, description: `${DESCRIPTION}${EVM_TEXT}` }
      : { input: publishedInput, description: DESCRIPTION },
  inputRule: {
    // anyOf, not oneOf: each branch already refuses the others' params (null), so at most one can match.
    anyOf: [
      // null is absent (contract section 4): toAddress and amount given, paymentRequirements absent or null...
      {
        required: ['toAddress', 'amount'],
        properties: {
          toAddress: present(addressSchema),
          amount: present(amountSchema),
          paymentRequirements: { type: 'null' },
          challenge: { type: 'null' },
        },
      },
      // ...or paymentRequirements given, toAddress and amount absent or null.
      {
        required: ['paymentRequirements'],
        properties: {
          paymentRequirements: present(paymentRequirementsParam),
          toAddress: { type: 'null' },
          amount: { type: 'null' },
          challenge: { type: 'null' },
        },
      },
      // ...or an MPP challenge given, the others absent or null.
      {
        required: ['challenge'],
        properties: {
          challenge: present(
            z.union([z.string().min(1).max(CHALLENGE_LENGTH_MAX), z.record(z.string(), z.unknown())]),
          ),
          toAddress: { type: 'null' },
          amount: { type: 'null' },
          paymentRequirements: { type: 'null' },
        },
      },
    ],
  },
  output: checkPaymentOutput,
  async run({ key, input: params, services }) {
    const payment = await paymentOf(params, services);
    return success(
      await services.checkPayment({
        walletId: key.walletId,
        actor: key.id,
        ...payment,
        nowMs: services.clock.nowMs(),
      }),
    );
  },
};

/** The payment to judge: the one named, or the one an x402 requirement or an MPP challenge asks for. */
async function paymentOf(
  params: Input,
  services: FaceServices,
): Promise<{ toAddress: string; amountMicros: bigint; merchantHost?: string | null }> {
  const given = [params.paymentRequirements, params.challenge].filter((p) => p !== undefined).length;
  if (given === 0) {
    if (params.toAddress === undefined || params.amount === undefined)
      throw invalid('params: give toAddress and amount, paymentRequirements, or challenge');
    return { toAddress: params.toAddress, amountMicros: params.amount };
  }
  if (given > 1 || params.toAddress !== undefined || params.amount !== undefined)
    throw invalid('params: give one of toAddress and amount, paymentRequirements, or challenge');
  const evm = services.chain?.rail.config;
  const chain =
    evm === undefined ? null : { chainId: evm.chainId, usdcAddress: evm.usdcAddress.toLowerCase() };
  if (params.challenge !== undefined) {
    if (chain === null) throw new AppError('PAYMENT_UNSUPPORTED', 'MPP payments need the evm rail');
    // The protocols' libraries (mppx, viem, @x402/core: tens of MB resident) load with the first offer read,
    // never on the sandbox rail, which pays no seller.
    const { challengeToPay } = await import('../payments/mpp-charge/method.ts');
    const offer = challengeToPay(challengeOf(params.challenge), chain, services.clock.nowMs());
    return {
      toAddress: offer.payTo,
      amountMicros: offer.amountMicros,
      merchantHost: merchantHostOf(offer.resourceUrl ?? ''),
    };
  }
  if (chain === null) throw new AppError('X402_UNSUPPORTED', 'x402 payments need the evm rail');
  const { x402OfferIn } = await import('../payments/registry.ts');
  const required = requiredOf(requirementsOf(params.paymentRequirements!));
  // An upto requirement is decided on its maximum, as x402_sign decides it.
  const offer = x402OfferIn(required, chain, services.clock.nowMs());
  return {
    toAddress: offer.payTo,
    amountMicros: offer.amountMicros,
    merchantHost: merchantHostOf(offer.resourceUrl ?? ''),
  };
}
