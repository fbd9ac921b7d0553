// The published OpenAPI document passes Redocly's linter (the `recommended` ruleset of @redocly/openapi-core, the
// engine of `redocly lint`) with no error and no warning, and names the project's license (Apache-2.0); so does
// the every-rail document the SDK's wire types are generated from (src/app/openapi-rails.ts).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { everyRailDocument } from '../src/app/openapi-rails.ts';
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

  async function lintProblems(text: string): Promise<string[]> {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: text, absoluteRef: 'openapi.json', config });
    return problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`);
  }

  test('no errors and no warnings', async () => {
    assert.deepEqual(await lintProblems(source), []);
    assert.deepEqual(JSON.parse(source).info.license, { name: 'Apache-2.0', identifier: 'Apache-2.0' });
  });

  test('the every-rail document (the evm rail’s operations added): no errors and no warnings', async () => {
    const every = await everyRailDocument(JSON.parse(source), h.services);
    assert.deepEqual(await lintProblems(JSON.stringify(every)), []);
  });
});
