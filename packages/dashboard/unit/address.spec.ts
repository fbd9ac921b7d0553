import { describe, expect, it } from 'vitest';
import { checkAddress, keccak256Hex, shortAddress, toChecksumAddress } from '../src/address.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('keccak256', () => {
  it('matches the known vectors', () => {
    expect(keccak256Hex(bytes(''))).toBe('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');
    expect(keccak256Hex(bytes('abc'))).toBe(
      '4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45',
    );
    // Exactly one rate block (136 bytes) and more than one.
    expect(keccak256Hex(bytes('a'.repeat(136)))).toHaveLength(64);
    expect(keccak256Hex(bytes('a'.repeat(300)))).not.toBe(keccak256Hex(bytes('a'.repeat(299))));
  });
});

describe('EIP-55 addresses', () => {
  // The examples of the EIP itself.
  const checksummed = [
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
  ];

  it('computes the checksum', () => {
    for (const address of checksummed) expect(toChecksumAddress(address.toLowerCase())).toBe(address);
  });

  it('accepts checksummed, all-lowercase and all-uppercase hex', () => {
    for (const address of checksummed) {
      expect(checkAddress(address).ok).toBe(true);
      expect(checkAddress(address.toLowerCase()).ok).toBe(true);
      expect(checkAddress(`0x${address.slice(2).toUpperCase()}`).ok).toBe(true);
    }
  });

  it.each([
    ['', /enter an address/i],
    ['5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', /starts with 0x/],
    ['0X5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', /starts with 0x/],
    ['0x1234', /40 hex digits.*has 4/],
    ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAedd', /has 41/],
    ['0xZZAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', /only the hex digits/],
    ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD', /checksum/],
  ])('refuses %j', (input, message) => {
    const check = checkAddress(input);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.reason).toMatch(message);
  });

  it('shortens for display', () => {
    expect(shortAddress('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed')).toBe('0x5aAeb6…1BeAed');
  });
});
