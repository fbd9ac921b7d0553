// `treasury_at_risk` alerts (contract sections 10 and 14): judged at each reading of the treasury the sender's
// round takes (the evm rail), since `atRisk` — the float plus what the chain still lets the service take — moves
// with refills, payouts, sweeps and period boundaries, none of which is a batch of the ledger. Each alert fires
// `treasury.at_risk` once per crossing: its fired state is compare-and-set in the same transaction as the event,
// so a second round, or another instance, reading the same figure fires nothing more.
import { evaluateTreasuryAlert } from '../../domain/alerts/alerts.ts';
import type { ServiceContext } from '../context.ts';
import { alertEvent } from '../money/batch-alerts.ts';
import { emitEvents, type NewEvent } from '../webhooks/webhook-events.ts';
import { ALERTS_PER_USER_MAX, alertStateOf } from './alerts.ts';

/** Treasury alerts looked at per reading: a bound, like every list (a few per organization at most in practice). */
const TREASURY_ALERTS_PER_READING_MAX = ALERTS_PER_USER_MAX * 50;

/** Fires and re-arms the treasury alerts at this reading of `atRisk` (null: unread); how many fired. */
export async function alertTreasuryOnce(
  ctx: Pick<ServiceContext, 'store' | 'writer' | 'clock' | 'events'>,
  atRiskMicros: bigint | null,
): Promise<number> {
  if (atRiskMicros === null) return 0;
  const rows = await ctx.store.db
    .selectFrom('alerts')
    .selectAll()
    .where('type', '=', 'treasury_at_risk')
    .orderBy('id')
    .limit(TREASURY_ALERTS_PER_READING_MAX)
    .execute();
  const nowMs = ctx.clock.nowMs();
  const changes = rows.flatMap((row) => {
    const next = evaluateTreasuryAlert(alertStateOf(row), atRiskMicros);
    const firedJson = JSON.stringify([...next.fired].sort());
    return firedJson === row.fired_json ? [] : [{ row, firedJson, firings: next.firings }];
  });
  if (changes.length === 0) return 0;
  return ctx.writer.run(async (trx) => {
    const events: NewEvent[] = [];
    for (const { row, firedJson, firings } of changes) {
      const updated = await trx
        .updateTable('alerts')
        .set({ fired_json: firedJson })
        .where('id', '=', row.id)
        .where('fired_json', '=', row.fired_json)
        .executeTakeFirst();
      // Changed meanwhile (another round, another instance): that one decided this crossing.
      if (updated.numUpdatedRows === 1n) events.push(...firings.map((f) => alertEvent(f, nowMs)));
    }
    await emitEvents(trx, events, ctx.events);
    return events.length;
  });
}
