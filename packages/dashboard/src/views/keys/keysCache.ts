// The cached key list, changed in place after a create, revoke or rotate; and the key shown once.
import type { ApiKey, CreatedApiKey as CreatedKey, Page } from '@agent-wallet/sdk';
import { useQueryClient } from '@tanstack/react-query';
import { K, updateData } from '../../queries.ts';

/** The listing view of a key just created (the listing never has the key itself). */
export function listedKey(created: CreatedKey): ApiKey {
  return {
    id: created.id,
    type: 'api_key',
    clientName: null,
    prefix: created.prefix,
    label: created.label,
    scopes: created.scopes,
    walletId: created.walletId,
    status: 'active',
    createdAt: created.createdAt,
    expiresAt: created.expiresAt,
    revokedAt: null,
    lastUsedAt: null,
    rotatedToKeyId: null,
  };
}

export interface ShownKey {
  created: CreatedKey;
  previous?: ApiKey;
}

/** Changes the cached key list in place (a key added, revoked or rotated): no request to list them again. */
export function useKeysUpdate(walletId: string) {
  const qc = useQueryClient();
  return (change: (items: ApiKey[]) => ApiKey[], added = 0) =>
    updateData<Page<ApiKey>>(qc, K.keys(walletId), (page) => ({
      ...page,
      items: change(page.items),
      total: page.total + added,
    }));
}
