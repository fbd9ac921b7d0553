// OAuth for agent hosts (contract section 12). New tables and two columns with defaults, so rows written before
// it need no backfill and a database of the previous release starts on this one unchanged.
// - api_keys.type: 'api_key' or 'oauth'. A connection an owner allowed is a row of api_keys, so it is exactly as
//   strong as a key of that wallet with those scopes (policies, limits, revocation, listing) and counts against
//   the wallet's key limit; its key_hash is the hash of a secret nobody was ever given.
// - api_keys.client_id: the OAuth client of a connection (a registered id or a metadata document's URL).
// - oauth_clients: clients registered by RFC 7591 dynamic registration (public clients, no secret).
// - oauth_codes: authorization codes (hashed), bound to client, redirect URI, PKCE challenge and resource.
// - oauth_tokens: access and refresh tokens (hashed) of a connection; a refresh token is used once.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('api_keys')
    .addColumn('type', 'text', (c) => c.notNull().defaultTo('api_key'))
    .execute();
  await db.schema.alterTable('api_keys').addColumn('client_id', 'text').execute();
  await db.schema
    .createTable('oauth_clients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('redirect_uris_json', 'text', (c) => c.notNull())
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('oauth_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('client_name', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    // The organization's scope id (resources' user_id) and the member who allowed it.
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('member_id', 'text', (c) => c.notNull())
    .addColumn('wallet_id', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('used_at_ms', 'bigint')
    // The connection its exchange created: a second use of the code revokes it (OAuth 2.1 section 4.1.3).
    .addColumn('key_id', 'text')
    .execute();
  await db.schema
    .createTable('oauth_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('expires_at_ms', 'bigint', (c) => c.notNull())
    .addColumn('used_at_ms', 'bigint')
    .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oauth_tokens_key_idx').on('oauth_tokens').column('key_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('oauth_tokens').execute();
  await db.schema.dropTable('oauth_codes').execute();
  await db.schema.dropTable('oauth_clients').execute();
  await db.schema.alterTable('api_keys').dropColumn('client_id').execute();
  await db.schema.alterTable('api_keys').dropColumn('type').execute();
}
