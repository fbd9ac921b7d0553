// The README's roles table is the routes' own (issue 28): regenerate it with UPDATE_README=1.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { ROLES_TABLE_END, ROLES_TABLE_START, rolesTable } from '../src/routes/roles-table.ts';

const README = resolve(import.meta.dirname, '../../../README.md');

/** A Markdown table without its alignment padding (the formatter pads cells; the content is what counts). */
function cells(table: string): string[] {
  return table
    .trim()
    .split('\n')
    .map((line) =>
      line
        .split('|')
        .map((cell) => cell.trim().replace(/^-+$/, '-'))
        .join('|'),
    );
}

test('the README lists every session route with the roles the route declares', () => {
  const text = readFileSync(README, 'utf8');
  const start = text.indexOf(ROLES_TABLE_START);
  const end = text.indexOf(ROLES_TABLE_END);
  assert.ok(start >= 0 && end > start, 'the README has no roles table markers');
  const current = text.slice(start + ROLES_TABLE_START.length, end).trim();
  const expected = rolesTable();
  if (process.env.UPDATE_README === '1' && cells(current).join('\n') !== cells(expected).join('\n')) {
    writeFileSync(
      README,
      `${text.slice(0, start + ROLES_TABLE_START.length)}\n${expected}\n${text.slice(end)}`,
    );
    return;
  }
  assert.deepEqual(
    cells(current),
    cells(expected),
    'the roles table is stale: run UPDATE_README=1 node --test this file',
  );
});
