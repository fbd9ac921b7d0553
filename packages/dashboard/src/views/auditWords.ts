// The organization's audit log in words (contract section 9): who acted — a member by email ("you" for the person
// looking), an agent by its API key's label, the service by name — and what they did, from the operation's name
// ("createPolicy" → "Create policy") or a payment's new status ("transaction.completed" → "Payment completed").
// Pure: unit-tested.
import type { AuditEntry } from '../api/organization.ts';

type Actor = AuditEntry['actor'];

/** Who acted, ready to stand in a table cell (an email is never re-cased). */
export function describeAuditActor(actor: Actor, selfId?: string): string {
  const label = actor.label !== null && actor.label.trim() !== '' ? actor.label : null;
  switch (actor.type) {
    case 'member':
      if (actor.id === selfId) return label === null ? 'You' : `You (${label})`;
      return label ?? 'A former member';
    case 'agent':
      return label === null ? 'An API key' : `API key ‘${label}’`;
    default:
      return actor.id === 'chain' ? 'The chain' : 'The service';
  }
}

/** "createPolicy" → "Create policy"; "transaction.pending_approval" → "Payment pending approval". */
export function describeAuditAction(action: string): string {
  const payment = /^transaction\.(.+)$/.exec(action);
  if (payment !== null) return `Payment ${words(payment[1] ?? '')}`;
  const text = words(action);
  return text === '' ? action : text[0]!.toUpperCase() + text.slice(1);
}

/** camelCase and snake_case as lower-case words. */
function words(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_.-]+/g, ' ')
    .trim()
    .toLowerCase();
}
