import { z } from 'zod';
import { currentUser } from '../../http/auth-hooks.ts';
import { defineRoute } from '../../http/route.ts';
import { addressSchema, labelSchema } from '../../http/schemas.ts';
import { withdrawalAddressView } from './withdrawal-schemas.ts';

export default defineRoute({
  method: 'POST',
  url: '/api/v1/wallet/withdrawal-addresses',
  auth: 'user',
  role: 'owner',
  stepUp: 'always',
  summary: 'Add a withdrawal address',
  description:
    'The master wallet can withdraw only to addresses of this book, each usable from `activatesAt` = now + ' +
    'WITHDRAWAL_ADDRESS_DELAY_SECONDS (default 24 h; 0: at once), so that an address added by someone else can ' +
    'be removed before it is used. Sends `withdrawal_address.added`. At most 100 (past that, 400); the same address twice is ' +
    '409 INVALID_STATE.',
  tags: ['wallet'],
  body: z.strictObject({ address: addressSchema, label: labelSchema }),
  response: withdrawalAddressView,
  successStatus: 201,
  handler: async ({ request, body, services }) => ({
    data: await services.withdrawals.addAddress(currentUser(request).tenantId, body),
  }),
});
