// The published OpenAPI document passes Redocly's linter (the `recommended` ruleset of @redocly/openapi-core, the
// engine of `redocly lint`) with no error and no warning, and names the project's license (Apache-2.0).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { type Harness, startHarness } from './support/harness.ts';
import { call } from './support/http.ts';

describe('redocly lint (recommended) of /api/v1/openapi.json', () => {
  let h: Harness;
  let source: string;
  before(async () => {
    h = await startHarness('sqlite', 'openapi-lint');
    source = (await call(h.app, 'GET', '/api/v1/openapi.json')).raw;
  });
  after(() => h?.close());

  test('no errors and no warnings', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
    const reported = problems.map(
      (p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`,
    );
    assert.deepEqual(reported, []);
    assert.deepEqual(JSON.parse(source).info.license, { name: 'Apache-2.0', identifier: 'Apache-2.0' });
  });
});
