// Every key of the service comes from one BIP-39 mnemonic along BIP-44 `m/44'/60'/0'/0/<index>`: index 0 is the
// treasury (it holds the swept USDC and pays all gas), each wallet has its own index from 1 up, stored with it,
// so the address a user sees is one the service can sign for. The seed is computed once (PBKDF2 is slow on
// purpose) and accounts are cached, bounded.
import { mnemonicToSeedSync } from '@scure/bip39';
import { type HDAccount, HDKey, hdKeyToAccount } from 'viem/accounts';
import { DERIVATION_INDEX_MAX } from '../domain/address.ts';

export const TREASURY_INDEX = 0;
/** Deposit addresses signed for at once are few (sweeps, in batches); a bound keeps a big service's cache small. */
const ACCOUNT_CACHE_MAX = 1_024;

export interface ServiceKeys {
  readonly treasury: HDAccount;
  /** The account of a wallet's derivation index. */
  accountAt(index: number): HDAccount;
  /** Lower-case address of a derivation index. */
  addressAt(index: number): string;
}

export function serviceKeys(mnemonic: string): ServiceKeys {
  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic));
  const cache = new Map<number, HDAccount>();
  const accountAt = (index: number): HDAccount => {
    if (!Number.isInteger(index) || index < 0 || index > DERIVATION_INDEX_MAX) {
      throw new RangeError(`derivation index ${index} is outside 0..${DERIVATION_INDEX_MAX}`);
    }
    const known = cache.get(index);
    if (known !== undefined) return known;
    const account = hdKeyToAccount(root, { addressIndex: index });
    if (cache.size >= ACCOUNT_CACHE_MAX) cache.clear();
    cache.set(index, account);
    return account;
  };
  const treasury = accountAt(TREASURY_INDEX);
  return { treasury, accountAt, addressAt: (index) => accountAt(index).address.toLowerCase() };
}
