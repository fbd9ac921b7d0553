// The audit log cannot lose a line and shows what was removed (contract section 9): each member's write is
// recorded before it runs and sealed after, numbered in its organization's hash chain; `agent-wallet
// verify-audit` checks the chain; GET /audit pages by key. On both stores.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { verifyAuditChains } from '../src/services/organizations/audit-log.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { addMember, fundedUser, signupUser, type TestUser } from './support/http.ts';
import { runCli } from './support/processes.ts';
import { POSTGRES_URL } from './support/services.ts';

/** `agent-wallet verify-audit` on the harness's store; `output` is stdout and stderr. */
async function verifyAuditCli(h: Harness): Promise<{ code: number; output: string }> {
  const store: Record<string, string> =
    h.postgresSchema === undefined ? {} : { DATABASE_URL: POSTGRES_URL, DATABASE_SCHEMA: h.postgresSchema };
  const ran = await runCli(['verify-audit'], { DATA_DIR: h.dataDir, ...store }, [
    'DATABASE_URL',
    'DATABASE_SCHEMA',
    'REDIS_URL',
    'RATE_LIMITS',
    'RAIL',
  ]);
  return { code: ran.code, output: `${ran.stdout}${ran.stderr}` };
}

/** A trigger that refuses one kind of statement on audit_events, in the store's own dialect; returns its undo. */
async function refuseOnAuditEvents(h: Harness, when: 'insert' | 'update'): Promise<() => Promise<void>> {
  const db = h.services.store.db;
  if (h.store === 'sqlite') {
    await sql
      .raw(
        `create trigger audit_refused before ${when} on audit_events begin select raise(abort, 'refused by the test'); end`,
      )
      .execute(db);
    return async () => void (await sql`drop trigger audit_refused`.execute(db));
  }
  await sql
    .raw(
      `create or replace function audit_refused() returns trigger language plpgsql as $$ begin raise exception 'refused by the test'; end $$`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger audit_refused before ${when} on audit_events for each row execute function audit_refused()`,
    )
    .execute(db);
  return async () => void (await sql`drop trigger audit_refused on audit_events`.execute(db));
}

async function auditItems(user: TestUser, query = 'limit=100') {
  const log = await user.api.get(`/api/v1/audit?${query}`);
  assert.equal(log.status, 200, log.raw);
  // biome-ignore lint/suspicious/noExplicitAny: audit entries are JSON
  return log.body.data as { items: Array<Record<string, any>>; total: number; nextCursor: string | null };
}

for (const target of await storeTargets()) {
  describe(`the audit log's chain (${target.name})`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(target.name, 'audit');
    });
    after(() => h?.close());

    test('every write is a numbered, chained line; a refused one stays in the chain, out of the view', async () => {
      const { user: owner, walletId } = await fundedUser(h.app, '100');
      const refused = await owner.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: '1000' });
      assert.equal(refused.status, 422, refused.raw);
      const funded = await owner.api.post(`/api/v1/agent-wallets/${walletId}/fund`, { amount: '10' });
      assert.equal(funded.status, 200, funded.raw);
      const { items } = await auditItems(owner);
      const actions = items.filter((i) => i.actor.type === 'member').map((i) => i.action);
      assert.deepEqual(
        actions,
        ['fundAgentWallet', 'createAgentWallet', 'sandboxDeposit'],
        JSON.stringify(items),
      );
      assert.ok(items.every((i) => i.outcome === 'completed'));
      const rows = await h.services.store.db
        .selectFrom('audit_events')
        .select(['seq', 'outcome', 'action'])
        .where('organization_id', '=', await organizationOf(owner))
        .orderBy('seq')
        .execute();
      assert.deepEqual(
        rows.map((r) => [Number(r.seq), r.outcome]),
        [
          [1, 'completed'],
          [2, 'completed'],
          [3, 'refused'],
          [4, 'completed'],
        ],
      );
      const report = await verifyAuditChains(h.services.store.db);
      assert.deepEqual(report.problems, []);
    });

    test('concurrent writes by several members are numbered one by one', async () => {
      const { user: owner } = await fundedUser(h.app, '100');
      const { member: admin } = await addMember(h.app, owner, 'admin');
      const writes = Array.from({ length: 24 }, (_, i) =>
        (i % 2 === 0 ? owner : admin).api.post('/api/v1/agent-wallets', { label: `w${i}` }),
      );
      for (const reply of await Promise.all(writes)) assert.equal(reply.status, 201, reply.raw);
      const org = await organizationOf(owner);
      const seqs = await h.services.store.db
        .selectFrom('audit_events')
        .select('seq')
        .where('organization_id', '=', org)
        .orderBy('seq')
        .execute();
      assert.deepEqual(
        seqs.map((r) => Number(r.seq)),
        seqs.map((_, i) => i + 1),
      );
      assert.deepEqual((await verifyAuditChains(h.services.store.db)).problems, []);
    });

    test("writes of two organizations at once, one's first lines among them, are each numbered in their own chain", async () => {
      const { user: funded } = await fundedUser(h.app, '100');
      // A new signup has written no line yet: its chain's head is made in the same transaction as the other's lines.
      const fresh = await signupUser(h.app, 'audit-fresh');
      const writes = Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? funded : fresh).api.post('/api/v1/agent-wallets', { label: `both ${i}` }),
      );
      for (const reply of await Promise.all(writes)) assert.equal(reply.status, 201, reply.raw);
      for (const user of [funded, fresh]) {
        const seqs = await h.services.store.db
          .selectFrom('audit_events')
          .select(['seq', 'outcome'])
          .where('organization_id', '=', await organizationOf(user))
          .orderBy('seq')
          .execute();
        assert.deepEqual(
          seqs.map((r) => Number(r.seq)),
          seqs.map((_, i) => i + 1),
        );
        assert.ok(seqs.length >= 10);
        assert.ok(
          seqs.every((r) => r.outcome === 'completed'),
          'every line sealed before its answer',
        );
      }
      assert.deepEqual((await verifyAuditChains(h.services.store.db)).problems, []);
    });

    test('pages by cursor read the same log as pages by number', async () => {
      const { user: owner } = await fundedUser(h.app, '100');
      for (let i = 0; i < 12; i++) await owner.api.post('/api/v1/agent-wallets', { label: `page ${i}` });
      const all = (await auditItems(owner)).items.map((i) => i.id);
      const walked: string[] = [];
      let query = 'limit=5';
      for (let pages = 0; pages < 10; pages++) {
        const page = await auditItems(owner, query);
        walked.push(...page.items.map((i) => i.id));
        if (page.nextCursor === null) break;
        query = `limit=5&cursor=${page.nextCursor}`;
      }
      assert.deepEqual(walked, all);
      const bad = await owner.api.get('/api/v1/audit?cursor=bm90IGEgY3Vyc29y');
      assert.equal(bad.status, 400, bad.raw);
      assert.equal(bad.body.error.code, 'VALIDATION_ERROR');
    });

    test('a write whose line cannot be written does not run; one whose seal fails shows an unknown outcome', async () => {
      const { user: owner } = await fundedUser(h.app, '100');
      const walletsBefore = (await owner.api.get('/api/v1/agent-wallets')).body.data.total;
      const undoInsert = await refuseOnAuditEvents(h, 'insert');
      try {
        const blocked = await owner.api.post('/api/v1/agent-wallets', { label: 'unaudited' });
        assert.ok(blocked.status >= 500, blocked.raw);
      } finally {
        await undoInsert();
      }
      assert.equal(
        (await owner.api.get('/api/v1/agent-wallets')).body.data.total,
        walletsBefore,
        'nothing ran',
      );
      const undoUpdate = await refuseOnAuditEvents(h, 'update');
      let created: string;
      try {
        const reply = await owner.api.post('/api/v1/agent-wallets', { label: 'sealed late' });
        assert.equal(reply.status, 201, reply.raw);
        created = reply.body.data.id;
      } finally {
        await undoUpdate();
      }
      const line = (await auditItems(owner)).items.find(
        (i) => i.action === 'createAgentWallet' && i.target === null,
      );
      assert.equal(line?.outcome, 'unknown', 'the line is there, its outcome unknown');
      assert.ok(created);
      const report = await verifyAuditChains(h.services.store.db);
      assert.deepEqual(report.problems, []);
      assert.ok(report.unknown >= 1);
    });

    test('verify-audit: clean, then a changed, a removed and a last line removed are each found', async () => {
      const { user: owner } = await fundedUser(h.app, '100');
      for (let i = 0; i < 3; i++) await owner.api.post('/api/v1/agent-wallets', { label: `kept ${i}` });
      const org = await organizationOf(owner);
      const clean = await verifyAuditCli(h);
      assert.equal(clean.code, 0, clean.output);
      const head = await h.services.store.db
        .selectFrom('audit_heads')
        .selectAll()
        .where('organization_id', '=', org)
        .executeTakeFirstOrThrow();
      assert.ok(clean.output.includes(`${org} ${head.seq} ${head.hash}`), clean.output);
      const db = h.services.store.db;
      const lines = await db
        .selectFrom('audit_events')
        .select(['id', 'seq'])
        .where('organization_id', '=', org)
        .orderBy('seq')
        .execute();
      await db
        .updateTable('audit_events')
        .set({ after_json: '{"label":"forged"}' })
        .where('id', '=', lines[1]!.id)
        .execute();
      const changed = await verifyAuditCli(h);
      assert.equal(changed.code, 1, changed.output);
      assert.match(
        changed.output,
        new RegExp(`${lines[1]!.id} \\(2\\): its outcome does not match its seal`),
      );
      await db.deleteFrom('audit_events').where('id', '=', lines[2]!.id).execute();
      assert.match((await verifyAuditCli(h)).output, /number 4 follows 2/);
      await db.deleteFrom('audit_events').where('id', '=', lines.at(-1)!.id).execute();
      const report = await verifyAuditChains(db);
      assert.ok(
        report.problems.some((p) => p.includes(`its kept head is ${head.seq}`)),
        report.problems.join('\n'),
      );
    });
  });
}

async function organizationOf(user: TestUser): Promise<string> {
  const organization = await user.api.get('/api/v1/organization');
  assert.equal(organization.status, 200, organization.raw);
  return organization.body.data.id;
}
