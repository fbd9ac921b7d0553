// Prepared statements on PostgreSQL (db.ts): a SQL text run often is prepared once per connection and its
// plan reused. When another instance changes a table's shape, the stale statement fails once as a store outage
// (503, never a 500) on a connection that is then dropped; the statement works again on the next.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { POSTGRES_URL, probeService, uniqueName } from '../../test/support/services.ts';
import { openStore, type Store } from './db.ts';
import { isConnectionFailure } from './errors.ts';

const probe = await probeService('PostgreSQL', POSTGRES_URL);

describe('prepared statements (postgres)', { skip: probe.available ? false : probe.skip }, () => {
  const schema = uniqueName('prepared');
  let store: Store;
  before(async () => {
    store = await openStore({
      databaseUrl: POSTGRES_URL,
      dataDir: '/nonexistent',
      postgresSchema: schema,
      postgresPoolSizeMax: 1,
      sqliteBusyTimeoutMs: 1_000,
      connectTimeoutMs: 2_000,
      statementTimeoutMs: 2_000,
      onConnectionError: () => undefined,
    });
    await sql`create table t (id int primary key, v text)`.execute(store.db);
    await sql`insert into t values (1, 'one')`.execute(store.db);
  });
  after(() => store.close());

  const read = () => sql<{ id: number }>`select * from t where id = ${1}`.execute(store.db);

  test('a statement run often is prepared, and a change of its table is a one-off store outage', async () => {
    for (let i = 0; i < 5; i += 1) assert.equal((await read()).rows[0]?.id, 1);
    const other = new pg.Client({ connectionString: POSTGRES_URL });
    await other.connect();
    await other.query(`alter table ${schema}.t add column w text`);
    await other.end();
    const failed = await read().then(
      () => undefined,
      (error: unknown) => error,
    );
    // The prepared `select *` now returns another row type: PostgreSQL refuses it on that connection.
    assert.ok(failed !== undefined, 'the stale prepared statement was refused');
    assert.ok(isConnectionFailure(failed), String(failed));
    assert.equal((await read()).rows[0]?.id, 1, 'works again on a fresh connection');
  });
});
