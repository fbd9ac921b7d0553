// The published OpenAPI document passes Redocly's linter (the `recommended` ruleset of @redocly/openapi-core, the
// engine of `redocly lint`) with no error and no warning — except `info-license`: the project has not declared a
// license yet, and the document will not invent one.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { type Harness, startHarness } from './support/harness.ts';
import { call } from './support/http.ts';

const KNOWN = new Set(['info-license']);

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
    const reported = problems
      .filter((p) => !KNOWN.has(p.ruleId))
      .map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`);
    assert.deepEqual(reported, []);
  });
});
