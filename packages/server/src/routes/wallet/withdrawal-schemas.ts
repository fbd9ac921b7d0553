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
