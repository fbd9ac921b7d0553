// Migration 0021 (api_keys.created_by) on keys and OAuth connections written before it: taken down to 0020's
// shape, where no key names its maker, and up again on both stores. What the database knew decides, most certain
// first: an OAuth code names the member who allowed the connection; the audit log names who created an API key
// (createKey) or rotated one (rotateKey: the new key is the rotator's); what predates the organization's first
// accepted invitation was its founder's. A key none of them accounts for stays unattributed (null). New keys,
// rotations and connections record their maker themselves (checked on the way up too).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { migrateTo, migrateToLatest } from '../src/store/migrate.ts';
import { createKey, keyUrl } from './support/agent.ts';
import { type Harness, startHarness, storeTargets } from './support/harness.ts';
import { addMember, fundedUser } from './support/http.ts';

const MINUTE_MS = 60_000;

for (const target of await storeTargets()) {
  describe(`key creators migration on ${target.name}`, { skip: target.skip }, () => {
    let h: Harness;
    before(async () => {
      // Kysely's migration lock is one advisory lock for the whole database: another suite's start-up migration
      // can hold it past the default 5 s statement timeout on a loaded runner.
      h = await startHarness(target.name, 'key_creators', { env: { DB_STATEMENT_TIMEOUT_MS: '60000' } });
    });
    after(() => h?.close());

    test('each key of the release before names the member who made it, where the database knew', async () => {
      const db = h.services.store.db;
      const { user: founder, walletId } = await fundedUser(h.app, '5');
      const early = await createKey(founder, walletId, { label: 'before anyone joined' });
      const earlyConnection = await insertConnection(h, founder.id, walletId, 'early app');
      h.clock.advanceMs(MINUTE_MS);
      const { member: admin } = await addMember(h.app, founder, 'admin');
      h.clock.advanceMs(MINUTE_MS);
      const byAdmin = await createKey(admin, walletId, { label: 'made by the admin' });
      const rotated = await admin.api.post(keyUrl(walletId, early.id, 'rotate'), { gracePeriodSeconds: 60 });
      assert.equal(rotated.status, 201, rotated.raw);
      const byFounder = await createKey(founder, walletId, { label: 'made by the founder later' });
      const consented = await insertConnection(h, founder.id, walletId, 'allowed app', admin.id);
      const unknown = await insertConnection(h, founder.id, walletId, 'nobody knows');
      const creators = async () =>
        Object.fromEntries(
          (
            await db
              .selectFrom('api_keys')
              .select(['id', 'created_by'])
              .where('user_id', '=', founder.id)
              .execute()
          ).map((r) => [r.id, r.created_by]),
        );
      // This release records them as they are made (the raw rows above were written without a maker).
      assert.deepEqual(await creators(), {
        [early.id]: founder.id,
        [earlyConnection]: null,
        [byAdmin.id]: admin.id,
        [rotated.body.data.id]: admin.id,
        [byFounder.id]: founder.id,
        [consented]: null,
        [unknown]: null,
      });

      await migrateTo(db, '0020_paid_request_history', h.postgresSchema);
      await assert.rejects(sql`select created_by from api_keys`.execute(db), 'down drops the column');
      await migrateToLatest(db, h.postgresSchema);
      assert.deepEqual(await creators(), {
        [early.id]: founder.id, // before the first accepted invitation: the founder's
        [earlyConnection]: founder.id, // the same rule, for a connection whose code is gone
        [byAdmin.id]: admin.id, // createKey in the audit log
        [rotated.body.data.id]: admin.id, // rotateKey in the audit log: the rotator's
        [byFounder.id]: founder.id, // createKey in the audit log
        [consented]: admin.id, // its authorization code names the member who allowed it
        [unknown]: null, // nothing says: left for an owner to revoke by hand
      });
    });
  });
}

/**
 * A connection row as an OAuth code exchange writes it, without a maker (as before 0021), and, with `member`, the
 * used authorization code that created it.
 */
async function insertConnection(
  h: Harness,
  scopeUserId: string,
  walletId: string,
  clientName: string,
  member?: string,
): Promise<string> {
  const db = h.services.store.db;
  const id = `key_${clientName.replace(/[^a-z]/g, '')}${Math.random().toString(36).slice(2, 10)}`;
  const nowMs = BigInt(h.clock.nowMs());
  await db
    .insertInto('api_keys')
    .values({
      id,
      wallet_id: walletId,
      user_id: scopeUserId,
      label: clientName,
      key_hash: `hash-of-${id}`,
      prefix: 'svc_oat_',
      scopes: 'read',
      created_at_ms: nowMs,
      expires_at_ms: null,
      revoked_at_ms: null,
      rotated_to_key_id: null,
      last_used_at_ms: null,
      type: 'oauth',
      client_id: 'oac_test',
      created_by: null,
    })
    .execute();
  if (member !== undefined) {
    await db
      .insertInto('oauth_codes')
      .values({
        code_hash: `code-of-${id}`,
        client_id: 'oac_test',
        client_name: clientName,
        redirect_uri: 'http://127.0.0.1:7/callback',
        code_challenge: 'challenge',
        resource: 'http://localhost/mcp',
        user_id: scopeUserId,
        member_id: member,
        wallet_id: walletId,
        scopes: 'read',
        expires_at_ms: nowMs + 600_000n,
        used_at_ms: nowMs,
        key_id: id,
      })
      .execute();
  }
  return id;
}
