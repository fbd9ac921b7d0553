import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newId, randomBase62, requestIdSource } from './ids.ts';

test('ids are unique and sort in creation order, even within one millisecond', () => {
  const ids = Array.from({ length: 5000 }, () => newId('tx'));
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual([...ids].sort(), ids);
  for (const id of ids) assert.match(id, /^tx_[0-9a-z]{13}[0-9A-Za-z]{12}$/);
});

test('random base62 uses the whole alphabet without bias towards low characters', () => {
  const sample = randomBase62(62_000);
  const counts = new Map<string, number>();
  for (const ch of sample) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  assert.equal(counts.size, 62);
  for (const n of counts.values()) assert.ok(n > 700 && n < 1300, `skewed count ${n}`);
});

test('the random part of ids (drawn from a pool) uses the whole alphabet without bias', () => {
  // 6,000 ids × 12 characters: the pool is refilled many times over.
  const sample = Array.from({ length: 6_000 }, () => newId('tx').slice(-12)).join('');
  const counts = new Map<string, number>();
  for (const ch of sample) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  assert.equal(counts.size, 62);
  for (const n of counts.values()) assert.ok(n > 800 && n < 1550, `skewed count ${n}`);
});

test('request ids are unique per source and differ between sources (instances, restarts)', () => {
  const one = requestIdSource();
  const ids = Array.from({ length: 10_000 }, () => one());
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ids.slice(0, 10)) assert.match(id, /^req_[0-9A-Za-z]{8}[0-9a-z]{8}$/);
  const other = requestIdSource();
  assert.notEqual(other().slice(0, 12), ids[0]!.slice(0, 12), 'another source has another prefix');
});
