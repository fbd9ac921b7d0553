// What the add and edit forms share: the cached list changed in place after a write, and the focus on the
// first field in error.
import type { Page, Policy } from '@agent-wallet/sdk';
import { useQueryClient } from '@tanstack/react-query';
import { useApp } from '../../app-context.ts';
import { K, refreshWallet, updateData } from '../../queries.ts';

/** After the errors render, put the cursor in the first field that has one. */
export function focusFirstInvalid(form: HTMLFormElement) {
  setTimeout(() => form.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus(), 0);
}

export function usePolicyWriter(walletId: string) {
  const { sdk } = useApp();
  const qc = useQueryClient();
  const key = K.policies(walletId);
  return {
    sdk,
    put(policy: Policy, added = false) {
      updateData<Page<Policy>>(qc, key, (page) =>
        added
          ? { ...page, items: [policy, ...page.items], total: page.total + 1 }
          : { ...page, items: page.items.map((item) => (item.id === policy.id ? policy : item)) },
      );
      void qc.invalidateQueries({ queryKey: K.policyChangesAll(walletId) });
      void refreshWallet(sdk, qc, walletId);
    },
    remove(policyId: string) {
      updateData<Page<Policy>>(qc, key, (page) => ({
        ...page,
        items: page.items.filter((item) => item.id !== policyId),
        total: page.total - 1,
      }));
      void qc.invalidateQueries({ queryKey: K.policyChangesAll(walletId) });
      void refreshWallet(sdk, qc, walletId);
    },
  };
}
