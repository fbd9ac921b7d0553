// XSS guard: user-controlled text (labels, memos, reasons, emails) is only ever rendered as React text.
// Nothing in the dashboard's sources may write HTML.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../src');
const FORBIDDEN = [
  /dangerouslySetInnerHTML/,
  /innerHTML/,
  /outerHTML/,
  /insertAdjacentHTML/,
  /document\.write/,
];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe('no HTML injection sinks in src/', () => {
  const sources = files(SRC).filter((file) => /\.(ts|tsx|js|jsx)$/.test(file));

  it('finds the sources', () => {
    expect(sources.length).toBeGreaterThan(10);
  });

  it('uses no dangerouslySetInnerHTML, innerHTML or similar anywhere', () => {
    const hits = sources.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, index) =>
          FORBIDDEN.filter((pattern) => pattern.test(line)).map(
            (pattern) => `${relative(SRC, file)}:${index + 1} ${pattern.source}`,
          ),
        ),
    );
    expect(hits).toEqual([]);
  });

  it('sets no inline style (the CSP is style-src self)', () => {
    const hits = sources.filter((file) => /\bstyle=\{/.test(readFileSync(file, 'utf8')));
    expect(hits).toEqual([]);
  });
});
