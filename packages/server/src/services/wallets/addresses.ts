// Where a new wallet's address comes from. On the sandbox rail it is derived from a server secret and no key
// exists for it; on the `evm` rail it is the next BIP-44 index of the service's mnemonic (chain/keys.ts), so
// money sent to it can be moved. The index counter lives in service_settings and is advanced inside the
// wallet's own database transaction: on PostgreSQL its row lock serialises concurrent signups across
// instances, and a rolled-back signup gives its index back.
import { type Kysely, sql } from 'kysely';
import type { ServiceKeys } from '../../chain/keys.ts';
import { NEXT_DERIVATION_INDEX } from '../../chain/setup.ts';
import { DERIVATION_INDEX_MAX, deriveAddress } from '../../domain/address.ts';
import type { Database } from '../../store/schema.ts';

export interface NewAddress {
  /** Lower-case hex. */
  address: string;
  derivationIndex: bigint | null;
}

export interface AddressSource {
  allocate(trx: Kysely<Database>, walletId: string): Promise<NewAddress>;
}

export function sandboxAddresses(secret: Uint8Array): AddressSource {
  return {
    allocate: async (_trx, walletId) => ({ address: deriveAddress(secret, walletId), derivationIndex: null }),
  };
}

export function hdAddresses(keys: ServiceKeys): AddressSource {
  return {
    async allocate(trx) {
      const index = await takeDerivationIndex(trx);
      return { address: keys.addressAt(Number(index)), derivationIndex: index };
    },
  };
}

async function takeDerivationIndex(trx: Kysely<Database>): Promise<bigint> {
  const { rows } = await sql<{ value: string }>`
    update service_settings set value = cast(cast(value as bigint) + 1 as text)
    where key = ${NEXT_DERIVATION_INDEX} returning value`.execute(trx);
  const next = rows[0]?.value;
  if (next === undefined)
    throw new Error('service_settings has no derivation index counter: the evm rail was not set up');
  const index = BigInt(next) - 1n;
  if (index < 1n || index > BigInt(DERIVATION_INDEX_MAX))
    throw new Error(`derivation index ${index} is out of range`);
  return index;
}
