// The sign buttons of a request waiting for the owners (the Treasury card's list, OwnersRequests.tsx). A multisig
// account's owner signs with their browser wallet (EIP-1193: eth_requestAccounts, then eth_signTypedData_v4 of the
// request's signRequest); a hybrid account's with their passkey (the service's WebAuthn options, whose challenge
// is the request's digest, the browser's ceremony, the answer handed in). Handing a signature in needs a recent
// proof of presence: the HTTP adapter (api/client.ts) holds a STEP_UP_REQUIRED refusal while the app's step-up
// dialog asks for one, then sends the same hand-in again; cancelled, the refusal is shown here in words. Whether
// the signer counts is the server's decision, shown in words too.
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { shortAddress } from '../address.ts';
import { signWithBrowserWallet, WalletProblem } from '../api/browserWallet.ts';
import { toApiError } from '../api/errors.ts';
import type { OwnersRequest } from '../api/treasury.ts';
import { useApp } from '../app-context.ts';
import { StatusNote } from '../components/Common.tsx';
import { K } from '../queries.ts';
import { ownersRequestWords, passkeyRefusalWords, signatureRefusalWords } from './treasuryWords.ts';

/**
 * What a click came to: who signed, or a refusal in words. Where the request stands is the row's to say (it moves
 * on as other owners sign), not this note's.
 */
type Outcome = { note: string } | { problem: string };

/** The wallet's signature handed in; a refusal (the wallet's or the server's) in words. */
async function signWithWallet(client: ReturnType<typeof useApp>['client'], request: OwnersRequest) {
  let signed: Awaited<ReturnType<typeof signWithBrowserWallet>>;
  try {
    signed = await signWithBrowserWallet(request.signRequest.typedData);
  } catch (error) {
    return { problem: error instanceof WalletProblem ? error.message : toApiError(error).message };
  }
  try {
    await client.treasury.sign(request.id, signed.signature);
    return { note: `Signed with ${shortAddress(signed.signer)}.` };
  } catch (error) {
    return { problem: signatureRefusalWords(toApiError(error), signed.signer) };
  }
}

/** The passkey's assertion handed in; a refusal (the browser's or the server's) in words. */
async function signWithPasskey(client: ReturnType<typeof useApp>['client'], request: OwnersRequest) {
  try {
    await client.treasuryPasskey.signWithPasskey({ id: request.id });
    return { note: 'Signed with your passkey.' };
  } catch (error) {
    return { problem: passkeyRefusalWords(toApiError(error)) };
  }
}

const HOW = {
  wallet: { sign: signWithWallet, label: 'Sign with your wallet', busy: 'Waiting for your wallet…' },
  passkey: { sign: signWithPasskey, label: 'Sign with your passkey', busy: 'Waiting for your passkey…' },
} as const;

export type SignMethod = keyof typeof HOW;

export function SignButton({ request, method }: { request: OwnersRequest; method: SignMethod }) {
  const { client } = useApp();
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const how = HOW[method];
  // The last signature moves the request on (submitted) and the button goes; what came of the click stays said.
  const waiting = request.status === 'awaiting_signatures';
  if (!waiting && outcome === null) return null;

  async function sign() {
    setBusy(true);
    setOutcome(null);
    try {
      setOutcome(await how.sign(client, request));
    } finally {
      setBusy(false);
    }
    // Signed or refused, the request may have moved (another owner signed meanwhile): the list is read again.
    await qc.invalidateQueries({ queryKey: K.ownersRequests });
    await qc.invalidateQueries({ queryKey: K.treasury });
  }

  return (
    <span className="owners-request-sign" data-method={method}>
      {waiting && (
        <button
          type="button"
          className="button small"
          onClick={() => void sign()}
          disabled={busy}
          aria-label={`${how.label}: ${ownersRequestWords(request)}`}
        >
          {busy ? how.busy : how.label}
        </button>
      )}
      {outcome !== null && 'problem' in outcome && (
        <span className="error-message" role="alert" data-testid="owners-request-refused">
          {outcome.problem}
        </span>
      )}
      <StatusNote text={outcome !== null && 'note' in outcome ? outcome.note : null} />
    </span>
  );
}
