// The data of every response, as the server sends it, by part of the API: what every part shares
// (types/common.ts), the tools', and the owner's REST API's. Amounts are decimal strings with 6 places
// ("10.500000"): never convert them to a JavaScript number, which cannot hold every USDC amount exactly.
export type * from './types/common.ts';
export type * from './types/organizations.ts';
export type * from './types/policies.ts';
export type * from './types/tools.ts';
export type * from './types/treasury.ts';
export type * from './types/wallets.ts';
