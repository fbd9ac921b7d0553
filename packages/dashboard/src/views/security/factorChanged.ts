// What a second factor added or removed makes stale: shared by the authenticator-app and passkey cards.
import { useQueryClient } from '@tanstack/react-query';
import { K } from '../../queries.ts';

/** Invalidates what a factor change moves: the summary, and the events list. */
export function useFactorChanged() {
  const qc = useQueryClient();
  return () => {
    void qc.invalidateQueries({ queryKey: K.mfa });
    void qc.invalidateQueries({ queryKey: K.securityEventsAll });
  };
}
