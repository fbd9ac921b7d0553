import { describe, expect, it } from 'vitest';
import { explorerTxUrl, shortHash } from '../src/explorer.ts';
import { txStatusLabel } from '../src/format.ts';

const HASH = `0x1234${'5'.repeat(56)}abcd`;

describe('explorerTxUrl', () => {
  it('links <explorerUrl>/tx/<hash> for an https or http explorer', () => {
    expect(explorerTxUrl('https://basescan.org', HASH)).toBe(`https://basescan.org/tx/${HASH}`);
    expect(explorerTxUrl('http://localhost:4000', HASH)).toBe(`http://localhost:4000/tx/${HASH}`);
    expect(explorerTxUrl('HTTPS://explorer.example/base', HASH)).toBe(
      `https://explorer.example/base/tx/${HASH}`,
    );
  });

  it('does not double a trailing slash', () => {
    expect(explorerTxUrl('https://basescan.org/', HASH)).toBe(`https://basescan.org/tx/${HASH}`);
    expect(explorerTxUrl('https://explorer.example/chain//', HASH)).toBe(
      `https://explorer.example/chain/tx/${HASH}`,
    );
  });

  it('is null without an explorer', () => {
    expect(explorerTxUrl(null, HASH)).toBeNull();
    expect(explorerTxUrl(undefined, HASH)).toBeNull();
    expect(explorerTxUrl('', HASH)).toBeNull();
  });

  it('is null for anything but an http(s) explorer', () => {
    for (const base of [
      'javascript:alert(1)//',
      'data:text/html,<script>alert(1)</script>',
      'ftp://explorer.example',
      '//explorer.example',
      'explorer.example',
      ' https://explorer.example',
      'https://',
      'https://user:pass@explorer.example',
      'https://explorer.example/?next=/evil',
      'https://explorer.example/#x',
    ]) {
      expect(explorerTxUrl(base, HASH), base).toBeNull();
    }
  });

  it('puts nothing but a well-formed hash into the link', () => {
    for (const hash of [
      '',
      '0x1234',
      `${HASH}/../../evil`,
      `${HASH}?x=1`,
      `0x${'g'.repeat(64)}`,
      HASH.slice(2),
    ]) {
      expect(explorerTxUrl('https://basescan.org', hash), hash).toBeNull();
    }
  });
});

describe('shortHash', () => {
  it('keeps the start and end: 0x1234…abcd', () => {
    expect(shortHash(HASH)).toBe('0x1234…abcd');
  });

  it('leaves a short text as it is', () => {
    expect(shortHash('0x1234')).toBe('0x1234');
  });
});

describe('txStatusLabel', () => {
  it('shows an evm payment in flight as sending on chain', () => {
    expect(txStatusLabel('processing', 'evm')).toBe('sending on chain');
    expect(txStatusLabel('processing', 'sandbox')).toBe('processing');
  });

  it('leaves the other statuses as they are', () => {
    expect(txStatusLabel('completed', 'evm')).toBe('completed');
    expect(txStatusLabel('failed', 'evm')).toBe('failed');
    expect(txStatusLabel('pending', null)).toBe('awaiting approval');
  });
});
