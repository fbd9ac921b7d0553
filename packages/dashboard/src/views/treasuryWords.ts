// The treasury in words (the overview's Treasury card, evm rail): who holds the money, and what whoever breached
// the server could move with it. Pure: unit-tested.
import type { TreasuryView } from '@agent-wallet/sdk';
import { formatUsdc } from '../money.ts';

/** Why the card shows no figures while GET /wallet/treasury answers 503 (the chain cannot be read). */
export const TREASURY_UNAVAILABLE =
  'The chain cannot be read right now, so the treasury is not shown; it will be as soon as the chain answers again.';

/** Under a hot treasury: what would bound it, and how to have it. */
export const BOUNDED_NOTE =
  'A bounded treasury (a smart account the owners hold, the service capped per period by the chain) is set up with TREASURY_MODE=bounded.';

/** Who holds the treasury, in a sentence: "Hot: the service's key holds all of it". */
export function treasuryModeWords(
  view: Pick<TreasuryView, 'mode' | 'owners' | 'threshold' | 'allowance'>,
): string {
  switch (view.mode) {
    case 'hot':
      return "Hot: the service's key holds all of it";
    case 'bounded': {
      const owners = view.owners.length;
      const signers =
        view.threshold === null || owners === 0
          ? ''
          : ` (${view.threshold} of ${owners} owner${owners === 1 ? '' : 's'} sign a change)`;
      const cap =
        view.allowance === null
          ? ''
          : `; the service may move ${formatUsdc(view.allowance.perPeriod)} per ${view.allowance.period}`;
      return `Bounded: a smart account the owners hold keeps it${signers}${cap}`;
    }
    default:
      // A mode this dashboard does not know yet: its name, as the server sent it.
      return String(view.mode);
  }
}

/** "At risk if the server is breached: 1,250.50 USDC". */
export function atRiskWords(atRisk: string): string {
  return `At risk if the server is breached: ${formatUsdc(atRisk)}`;
}
