// The SDK's wire types are generated from the server's OpenAPI document (scripts/generate-wire.ts): this fails
// while src/wire.generated.ts is stale, i.e. whenever a route's schema changed and the SDK did not follow.
// (src/wire-checks.ts holds the hand-written types to the generated ones at compile time.)
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { formattedWireModule, WIRE_FILE } from '../scripts/generate-wire.ts';

test('src/wire.generated.ts is what the server’s OpenAPI document generates today', async () => {
  const fresh = await formattedWireModule();
  assert.ok(
    readFileSync(WIRE_FILE, 'utf8') === fresh,
    'packages/sdk/src/wire.generated.ts is stale: run `npm run generate -w packages/sdk`',
  );
});
