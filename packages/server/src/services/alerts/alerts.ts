// Alerts (contract section 10): what the owner asked to hear about — a wallet's balance below an amount,
// spending reaching a share of a cap, or what a breach of the server could take (the evm treasury's `atRisk`)
// rising above an amount. Stored here; the first two are decided by the ledger's batches (domain/alerts/alerts.ts),
// which fire `balance.low` and `budget.threshold` once per crossing; the last where the treasury is read
// (treasury-alerts.ts), which fires `treasury.at_risk` once per crossing.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { isoFromMs } from '../../clock.ts';
import type { AlertRule, AlertState, AlertType } from '../../domain/alerts/alerts.ts';
import { newId } from '../../domain/ids.ts';
import { decimalToMicros, formatMicros } from '../../domain/money.ts';
import { invalid, notFound } from '../../errors.ts';
import type { Dialect } from '../../store/db.ts';
import { lockOwnerRow } from '../../store/locks.ts';
import type { AlertsTable, Database } from '../../store/schema.ts';
import type { ServiceContext } from '../context.ts';
import { masterWalletOf, ownedWallet } from '../wallets/wallet-rows.ts';

/** Alerts of one organization: a bound, like every other list. */
export const ALERTS_PER_USER_MAX = 200;

export type AlertParams = { amount: string } | { percent: number };

export interface AlertView {
  id: string;
  type: AlertType;
  walletId: string;
  params: AlertParams;
  /** Fired and not re-armed yet (the balance is still below; a cap still at or past the share). */
  firing: boolean;
  createdAt: string;
}

/** A wallet's alerts read as JSON by the batch's wallet query: [[id, user_id, type, params_json, fired_json], …]. */
export type AlertsJson = string | Array<[string, string, AlertType, string, string]> | null;

/**
 * The alerts of `walletId` as one JSON value, for the batch's one query of its wallets (no statement of its own:
 * a batch whose wallets have none pays an index probe, not a round trip).
 */
export function alertsJsonSql(dialect: Dialect, walletId: RawBuilder<unknown>): RawBuilder<AlertsJson> {
  const tuple =
    dialect === 'postgres'
      ? sql`json_build_array(a.id, a.user_id, a.type, a.params_json, a.fired_json)`
      : sql`json_array(a.id, a.user_id, a.type, a.params_json, a.fired_json)`;
  const aggregate = dialect === 'postgres' ? sql`json_agg` : sql`json_group_array`;
  return sql`(select ${aggregate}(${tuple}) from alerts a where a.wallet_id = ${walletId})`;
}

/** The alerts of one wallet from alertsJsonSql's value (PostgreSQL: parsed already, null for none). */
export function alertsFromJson(walletId: string, value: AlertsJson): AlertState[] {
  if (value === null) return [];
  const rows = typeof value === 'string' ? (JSON.parse(value) as Exclude<AlertsJson, string | null>) : value;
  return rows.map(([id, userId, type, paramsJson, firedJson]) =>
    alertStateOf({
      id,
      user_id: userId,
      wallet_id: walletId,
      type,
      params_json: paramsJson,
      fired_json: firedJson,
      created_at_ms: 0n,
    }),
  );
}

export function alertStateOf(row: AlertsTable): AlertState {
  return {
    id: row.id,
    userId: row.user_id,
    walletId: row.wallet_id,
    rule: ruleOf(row.type, JSON.parse(row.params_json)),
    fired: new Set(JSON.parse(row.fired_json) as string[]),
  };
}

function ruleOf(type: AlertType, params: { amount?: string; percent?: number }): AlertRule {
  if (type === 'cap_used') return { type, percent: params.percent! };
  return { type, amountMicros: decimalToMicros(params.amount!) };
}

function viewOf(row: AlertsTable): AlertView {
  return {
    id: row.id,
    type: row.type,
    walletId: row.wallet_id,
    params: JSON.parse(row.params_json) as AlertParams,
    firing: (JSON.parse(row.fired_json) as string[]).length > 0,
    createdAt: isoFromMs(row.created_at_ms),
  };
}

export interface NewAlert {
  type: AlertType;
  walletId?: string | undefined;
  /** amount in micro-units (validated and converted by the route). */
  params: { amount?: bigint | undefined; percent?: number | undefined };
}

export interface AlertService {
  create(userId: string, alert: NewAlert): Promise<AlertView>;
  list(userId: string, walletId?: string): Promise<AlertView[]>;
  remove(userId: string, alertId: string): Promise<{ id: string; deleted: true }>;
}

/** The alert inserted under the owner's row lock, unless the organization already has the most it may. */
async function insertUnderCount(trx: Kysely<Database>, row: AlertsTable): Promise<void> {
  await lockOwnerRow(trx, 'users', row.user_id);
  const count = await trx
    .selectFrom('alerts')
    .select((eb) => eb.fn.countAll<bigint>().as('n'))
    .where('user_id', '=', row.user_id)
    .executeTakeFirstOrThrow();
  if (Number(count.n) >= ALERTS_PER_USER_MAX)
    throw invalid(`an organization has at most ${ALERTS_PER_USER_MAX} alerts`);
  await trx.insertInto('alerts').values(row).execute();
}

export function createAlertService(ctx: ServiceContext): AlertService {
  const { store, writer, clock } = ctx;

  /**
   * The wallet an alert watches: balance_below the master without a walletId, cap_used an agent wallet; a
   * treasury_at_risk alert watches the service's treasury and is kept with the organization's master wallet.
   */
  async function watched(userId: string, alert: NewAlert) {
    if (alert.type === 'treasury_at_risk') {
      if (alert.walletId !== undefined)
        throw invalid('walletId: treasury_at_risk watches the treasury, not a wallet');
      return masterWalletOf(store.db, userId);
    }
    if (alert.type === 'cap_used') {
      if (alert.walletId === undefined) throw invalid('walletId: cap_used watches an agent wallet’s caps');
      return ownedWallet(store.db, userId, alert.walletId, 'agent');
    }
    if (alert.walletId === undefined) return masterWalletOf(store.db, userId);
    const row = await store.db
      .selectFrom('wallets')
      .selectAll()
      .where('id', '=', alert.walletId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (row === undefined) throw notFound('wallet');
    return row;
  }

  async function create(userId: string, alert: NewAlert): Promise<AlertView> {
    const wallet = await watched(userId, alert);
    const params =
      alert.type === 'cap_used'
        ? { percent: alert.params.percent! }
        : { amount: formatMicros(alert.params.amount!) };
    const row: AlertsTable = {
      id: newId('alr'),
      user_id: userId,
      wallet_id: wallet.id,
      type: alert.type,
      params_json: JSON.stringify(params),
      fired_json: '[]',
      created_at_ms: BigInt(clock.nowMs()),
    };
    await writer.run((trx) => insertUnderCount(trx, row));
    return viewOf(row);
  }

  async function list(userId: string, walletId?: string): Promise<AlertView[]> {
    let query = store.db.selectFrom('alerts').selectAll().where('user_id', '=', userId);
    if (walletId !== undefined) query = query.where('wallet_id', '=', walletId);
    const rows = await query
      .orderBy('created_at_ms', 'desc')
      .orderBy('id', 'desc')
      .limit(ALERTS_PER_USER_MAX)
      .execute();
    return rows.map(viewOf);
  }

  async function remove(userId: string, alertId: string) {
    const result = await store.db
      .deleteFrom('alerts')
      .where('id', '=', alertId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (result.numDeletedRows !== 1n) throw notFound('alert');
    return { id: alertId, deleted: true as const };
  }

  return { create, list, remove };
}
