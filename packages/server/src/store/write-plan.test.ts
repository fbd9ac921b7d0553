import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { type Harness, startHarness, storeTargets } from '../../test/support/harness.ts';
import {
  chunksOf,
  combinedStatement,
  insertRows,
  runWrites,
  shiftPlaceholders,
  type WriteStep,
} from './write-plan.ts';

const step = (text: string, parameters: unknown[], rowsExpected?: number): WriteStep => ({
  what: text,
  query: CompiledQuery.raw(text, parameters),
  ...(rowsExpected === undefined ? {} : { rowsExpected }),
});

// Known before any test is registered: with --test-force-exit, a file whose first tests finish while it still
// awaits this would be ended before its suites ran.
const targets = await storeTargets();

describe('combined writes (pure)', () => {
  test('each step keeps its own parameters: placeholders renumbered after the steps before it', () => {
    const combined = combinedStatement([
      step('insert into a (x, y) values ($1, $2)', ['a1', 'a2']),
      step('update b set x = $1 where id = $2 returning id', ['b1', 'b2'], 1),
      step('insert into c (x) values ($1), ($2), ($3)', ['c1', 'c2', 'c3']),
    ]);
    assert.equal(
      combined.sql,
      'with s0 as (insert into a (x, y) values ($1, $2)), s1 as (update b set x = $3 where id = $4 returning id), ' +
        's2 as (insert into c (x) values ($5), ($6), ($7)) select (select count(*) from s1) as n1',
    );
    assert.deepEqual(combined.parameters, ['a1', 'a2', 'b1', 'b2', 'c1', 'c2', 'c3']);
    // $10 is the tenth parameter, not $1 followed by 0.
    const wide = combinedStatement([
      step('insert into a values ($1)', [0]),
      step(`insert into b values (${Array.from({ length: 10 }, (_, i) => `$${i + 1}`).join(', ')})`, [
        ...'0123456789',
      ]),
    ]);
    assert.match(wide.sql, /\(\$2, \$3, \$4, \$5, \$6, \$7, \$8, \$9, \$10, \$11\)/);
  });

  test('placeholders shift by the offset, whatever their digits; the text around them is kept', () => {
    assert.equal(shiftPlaceholders('a = $1 and b in ($2, $10)', 0), 'a = $1 and b in ($2, $10)');
    assert.equal(shiftPlaceholders('a = $1 and b in ($2, $10)', 9), 'a = $10 and b in ($11, $19)');
    assert.equal(shiftPlaceholders('$1', 99), '$100');
    assert.equal(shiftPlaceholders('no placeholders', 3), 'no placeholders');
    assert.throws(() => shiftPlaceholders("a = '$'", 1));
  });

  test('a multi-row insert names its columns once and numbers its values row by row', () => {
    const rows = [
      { id: 'l1', kind: 'payment', reference_id: null, created_at_ms: 5n },
      { id: 'l2', kind: 'fund', reference_id: 'r', created_at_ms: 6n },
    ];
    const pg = insertRows('postgres', 'ledger_transactions', rows);
    assert.equal(
      pg.sql,
      'insert into "ledger_transactions" ("id", "kind", "reference_id", "created_at_ms") values ($1, $2, $3, $4), ($5, $6, $7, $8)',
    );
    assert.deepEqual(pg.parameters, ['l1', 'payment', null, 5n, 'l2', 'fund', 'r', 6n]);
    assert.match(
      insertRows('sqlite', 'ledger_transactions', rows).sql,
      /values \(\?, \?, \?, \?\), \(\?, \?, \?, \?\)$/,
    );
    // A row that leaves a column out (or adds one) would shift every value after it: refused.
    assert.throws(() =>
      insertRows('postgres', 'ledger_transactions', [rows[0]!, Object.assign({ extra: 1 }, rows[1]!)]),
    );
    assert.throws(() =>
      insertRows('postgres', 'ledger_transactions', [rows[0]!, { ...rows[1]!, reference_id: undefined }]),
    );
    assert.throws(() => insertRows('postgres', 'ledger_transactions', []));
  });

  test('a step whose rows are checked must return them', () => {
    assert.throws(() => combinedStatement([step('update b set x = 1', [], 1), step('select 1', [])]));
  });

  test('chunks keep the order and stay under the parameter bound; a bigger step goes alone', () => {
    const sized = (n: number) =>
      step(
        `s${n}`,
        Array.from({ length: n }, () => 0),
      );
    const chunks = chunksOf([sized(3), sized(4), sized(2), sized(9), sized(1)], 8);
    assert.deepEqual(
      chunks.map((chunk) => chunk.map((s) => s.query.parameters.length)),
      [[3, 4], [2], [9], [1]],
    );
    assert.deepEqual(chunksOf([], 8), []);
  });
});

for (const target of targets) {
  describe(`combined writes (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'write_plan');
      await sql`create table plan_probe (id text primary key, n bigint not null)`.execute(
        h.services.store.db,
      );
    });
    after(() => h.close());

    const rows = async () =>
      (
        await sql<{ id: string }>`select id from plan_probe order by id`.execute(h.services.store.db)
      ).rows.map((r) => r.id);
    const insert = (id: string) => sql`insert into plan_probe (id, n) values (${id}, ${1n})`;

    test('every step is written, and a checked step that matched its rows passes', async () => {
      const db = h.services.store.db;
      await db.transaction().execute(async (trx) => {
        await runWrites(trx, [{ what: 'a', query: insert('a').compile(trx) }], h.services.store.dialect);
      });
      await db.transaction().execute(async (trx) => {
        const steps: WriteStep[] = [
          { what: 'b', query: insert('b').compile(trx) },
          {
            what: 'bump a',
            query: sql`update plan_probe set n = n + 1 where id = ${'a'} returning id`.compile(trx),
            rowsExpected: 1,
          },
          { what: 'c', query: insert('c').compile(trx) },
        ];
        await runWrites(trx, steps, h.services.store.dialect);
      });
      assert.deepEqual(await rows(), ['a', 'b', 'c']);
    });

    test('a checked step that matched fewer rows than decided fails, and its transaction writes nothing', async () => {
      const db = h.services.store.db;
      await assert.rejects(
        db.transaction().execute(async (trx) => {
          const steps: WriteStep[] = [
            { what: 'd', query: insert('d').compile(trx) },
            {
              what: 'a guarded update',
              query:
                sql`update plan_probe set n = n - 5 where id = ${'a'} and n - 5 >= 0 returning id`.compile(
                  trx,
                ),
              rowsExpected: 1,
            },
          ];
          await runWrites(trx, steps, h.services.store.dialect);
        }),
        /a guarded update: 0 rows where 1 were decided/,
      );
      assert.deepEqual(await rows(), ['a', 'b', 'c']);
    });
  });
}
