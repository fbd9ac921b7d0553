import assert from 'node:assert/strict';
import { test } from 'node:test';
import { printable } from './outbox-finish.ts';

test('a failure reason quoting raw revert bytes is stored without control characters (PostgreSQL refuses NUL)', () => {
  assert.equal(
    printable('the chain refused it (FailedOp(0, "AA24 signature error\u0000\u0000"))'),
    'the chain refused it (FailedOp(0, "AA24 signature error "))',
  );
  assert.equal(printable('a\u0000\u0001b\nc\u007f'), 'a b c');
  assert.equal(printable('plain words stay'), 'plain words stay');
});
