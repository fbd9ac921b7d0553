// The A/B script reads the benchmark's own report: every table's scenario and ratio, whatever the column order.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ratiosOf } from './bench-ab.mjs';

test('ratiosOf reads each scenario’s ratio from the report’s tables, none where it has no ratio', () => {
  const report = [
    '# Benchmark',
    '',
    '| scenario | req/s | ratio | reference |',
    '| --- | ---: | ---: | --- |',
    '| bare Fastify route | 39926 | — | — |',
    '| check_balance, 32 keys | 25054 | 0.63× | bare |',
    '',
    'Raw ledger ceiling: **5456 transfers/s**.',
    '',
    '| ratio | scenario |',
    '|---|---|',
    '| 1.28× | send_payment external, 32 wallets |',
  ].join('\n');
  assert.deepEqual(
    [...ratiosOf(report)],
    [
      ['bare Fastify route', null],
      ['check_balance, 32 keys', 0.63],
      ['send_payment external, 32 wallets', 1.28],
    ],
  );
});
