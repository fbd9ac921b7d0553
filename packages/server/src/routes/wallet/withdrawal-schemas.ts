// What the master wallet's withdrawal routes answer (contract section 8).
import { z } from 'zod';
import { amount, timestamp } from '../../http/views.ts';

export const withdrawalAddressView = z.object({
  id: z.string(),
  address: z.string().describe('EIP-55'),
  label: z.string(),
  status: z.enum(['pending', 'active']).describe('computed from the clock: active from activatesAt'),
  activatesAt: timestamp,
  createdAt: timestamp,
});

export const withdrawalView = z.object({
  id: z.string(),
  toAddress: z.string(),
  amount,
  memo: z.string().nullable(),
  status: z.enum(['processing', 'completed', 'failed']),
  txHash: z.string().nullable(),
  rail: z.string().describe('"sandbox", "evm", or "internal" for an address of this service'),
  createdAt: timestamp,
});

/** What the owners sign (bounded mode), as GET /api/v1/wallet/treasury's owners see it: docs/evm-rail.md. */
export const signRequestView = z.object({
  typedData: z
    .object({
      domain: z.object({
        name: z.string(),
        version: z.string(),
        chainId: z.number().int(),
        verifyingContract: z.string(),
      }),
      types: z.record(z.string(), z.array(z.object({ name: z.string(), type: z.string() }))),
      primaryType: z.string(),
      message: z.record(z.string(), z.string()),
    })
    .describe(
      'the EIP-712 data each owner signs with eth_signTypedData_v4: a user operation of their account',
    ),
  digest: z.string().describe('its EIP-712 hash'),
});

/**
 * The 202 of a request the owners sign (a revocation, a change of owners): `submitted` says what has started once
 * the threshold is met, `needed` whose signatures are counted.
 */
export function ownersRequestAnswer(submitted: string, needed = 'owners’ signatures still needed') {
  return z.object({
    id: z.string().describe('the request: the `id` its signatures are handed in with'),
    status: z.enum(['awaiting_signatures', 'submitted']).describe(`submitted: ${submitted}`),
    signRequest: signRequestView,
    signaturesNeeded: z.number().int().describe(needed),
  });
}

/** Those four fields of an owners' request, and nothing else of it. */
export function ownersRequestData<
  T extends { id: string; status: string; signRequest: unknown; signaturesNeeded: number },
>(view: T): Pick<T, 'id' | 'status' | 'signRequest' | 'signaturesNeeded'> {
  const { id, status, signRequest, signaturesNeeded } = view;
  return { id, status, signRequest, signaturesNeeded };
}

export const awaitingSignaturesView = z.object({
  id: z.string().describe('the withdrawal'),
  status: z.literal('awaiting_signatures'),
  signRequest: signRequestView,
  signaturesNeeded: z.number().int().describe('owners’ signatures still needed'),
});
