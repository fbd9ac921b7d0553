// The roles table of docs/owners/organizations.md is the routes' own: regenerate it with UPDATE_DOCS=1.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { ROLES_TABLE_END, ROLES_TABLE_START, rolesTable } from '../src/routes/roles-table.ts';

const DOC = resolve(import.meta.dirname, '../../../docs/owners/organizations.md');

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

test('docs/owners/organizations.md lists every session route with the roles the route declares', () => {
  const text = readFileSync(DOC, 'utf8');
  const start = text.indexOf(ROLES_TABLE_START);
  const end = text.indexOf(ROLES_TABLE_END);
  assert.ok(start >= 0 && end > start, 'docs/owners/organizations.md has no roles table markers');
  const current = text.slice(start + ROLES_TABLE_START.length, end).trim();
  const expected = rolesTable();
  if (process.env.UPDATE_DOCS === '1' && cells(current).join('\n') !== cells(expected).join('\n')) {
    writeFileSync(DOC, `${text.slice(0, start + ROLES_TABLE_START.length)}\n${expected}\n${text.slice(end)}`);
    return;
  }
  assert.deepEqual(
    cells(current),
    cells(expected),
    'the roles table is stale: run UPDATE_DOCS=1 node --test this file',
  );
});
