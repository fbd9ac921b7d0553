// The Members page's words about a removal: what ended with the member, or what was kept. Pure: unit-tested.
import type { Answer } from '../api/custody.ts';
import { plural } from '../format.ts';

export type Removal = Answer<'removeMember'>;

/** "a@b.co is removed from the organization. Revoked: 2 API keys (ci, nightly) and 1 connected app (Claude)." */
export function removalNote(email: string, removal: Removal): string {
  const revoked = madeText(removal.revokedKeys, removal.revokedOAuth);
  const kept = madeText(removal.keptKeys, removal.keptOAuth);
  const parts = [`${email} is removed from the organization.`];
  if (revoked !== null) parts.push(`Revoked: ${revoked}.`);
  if (kept !== null) parts.push(`Still working, as you chose: ${kept}.`);
  if (revoked === null && kept === null) parts.push('They had made no API key or connected app.');
  return parts.join(' ');
}

function madeText(
  keys: ReadonlyArray<{ label: string }>,
  apps: ReadonlyArray<{ clientName: string }>,
): string | null {
  const groups = [
    keys.length === 0 ? null : `${plural(keys.length, 'API key')} (${names(keys.map((k) => k.label))})`,
    apps.length === 0
      ? null
      : `${plural(apps.length, 'connected app')} (${names(apps.map((a) => a.clientName))})`,
  ].filter((group): group is string => group !== null);
  return groups.length === 0 ? null : groups.join(' and ');
}

/** At most three names, then how many more: a note stays one line. */
function names(all: readonly string[]): string {
  const NAMES_SHOWN_MAX = 3;
  const shown = all.slice(0, NAMES_SHOWN_MAX).join(', ');
  return all.length > NAMES_SHOWN_MAX ? `${shown} and ${all.length - NAMES_SHOWN_MAX} more` : shown;
}
