// The person's own wallets by name, for every view that names counterparties (activity, transactions,
// approvals, the wallet list): a hook of its own, so views import it and not each other.
import type { MasterWallet } from '@agent-wallet/sdk';
import { useMemo } from 'react';
import { walletName } from '../format.ts';
import { K, useAgentWallets, usePeek } from '../queries.ts';

/** The person's own wallets by lower-case address: counterparties are named, not shown as hex. */
export function useOwnWallets(): Map<string, string> {
  const wallets = useAgentWallets();
  const master = usePeek<MasterWallet>(K.master);
  return useMemo(() => {
    const names = new Map<string, string>();
    for (const wallet of wallets.data?.items ?? [])
      names.set(wallet.address.toLowerCase(), walletName(wallet.label));
    if (master !== undefined) names.set(master.address.toLowerCase(), 'Master wallet');
    return names;
  }, [wallets.data, master]);
}
