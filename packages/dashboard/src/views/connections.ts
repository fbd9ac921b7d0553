// The keys list of an agent wallet holds two kinds of credential (contract section 12): API keys, and the
// connections of apps that signed in by OAuth (`type: "oauth"`, `svc_oat_…` tokens). A connection is revoked like
// a key but never rotated (the app renews its own tokens), and the person knows it by the app's name, not by a
// key prefix. Servers before OAuth send no `type`: every item is then an API key. Pure: unit-tested.
import type { ApiKey } from '@agent-wallet/sdk';

/** An item of GET /agent-wallets/:walletId/keys, with the fields OAuth added (absent from older servers). */
export type ListedKey = ApiKey & {
  type?: 'api_key' | 'oauth';
  /** The app's name for a connection; null for an API key. */
  clientName?: string | null;
};

/** Whether the item is an app connected by OAuth rather than an API key. */
export function isConnectedApp(key: ListedKey): boolean {
  return key.type === 'oauth';
}

/** The app's name as the list shows it (the label carries it too). */
export function connectedAppName(key: ListedKey): string {
  const name = key.clientName ?? '';
  return name.trim() === '' ? key.label : name;
}
