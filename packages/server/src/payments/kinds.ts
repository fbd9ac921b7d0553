// What each way to pay is, by its id: the protocol and scheme history shows for a paid request. Apart from the
// methods themselves (registry.ts) so that reading history loads none of the protocols' libraries (mppx, viem,
// @x402/core: tens of MB resident, which a service on the sandbox rail never needs).
import { assert } from '../errors.ts';
import type { MethodId, Protocol, Scheme } from './method.ts';

export interface MethodKind {
  protocol: Protocol;
  scheme: Scheme;
}

export const METHOD_KINDS: Readonly<Record<MethodId, MethodKind>> = {
  'x402-exact': { protocol: 'x402', scheme: 'exact' },
  'x402-upto': { protocol: 'x402', scheme: 'upto' },
  'mpp-charge': { protocol: 'mpp', scheme: 'charge' },
};

export function kindOf(id: string): MethodKind {
  const kind = (METHOD_KINDS as Record<string, MethodKind | undefined>)[id];
  assert(kind !== undefined, `no payment method ${id} is registered`);
  return kind;
}
