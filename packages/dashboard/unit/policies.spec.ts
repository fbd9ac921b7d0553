import { describe, expect, it } from 'vitest';
import { checkPolicyParams, splitAddresses } from '../src/views/PoliciesPanel.tsx';

const A = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const B = '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359';

describe('policy params', () => {
  it('sends caps as {limit} and the approval threshold as {amount}', () => {
    expect(checkPolicyParams('spend_cap_daily', { amount: '50.5', addresses: '' })).toEqual({
      ok: true,
      params: { limit: '50.5' },
    });
    expect(checkPolicyParams('require_approval_above', { amount: '10', addresses: '' })).toEqual({
      ok: true,
      params: { amount: '10' },
    });
    expect(checkPolicyParams('spend_cap_per_tx', { amount: '1e3', addresses: '' }).ok).toBe(false);
  });

  it('splits allowlists on lines, commas and spaces', () => {
    expect(splitAddresses(`${A}\n\n ${B}, ${A}`)).toEqual([A, B, A]);
  });

  it('names every bad address', () => {
    const check = checkPolicyParams('address_allowlist', {
      amount: '',
      addresses: `${A}\n0x1234\n0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD`,
    });
    expect(check.ok).toBe(false);
    if (!check.ok) {
      expect(check.addressErrors).toHaveLength(2);
      expect(check.addressErrors[0]).toMatch(/^Address 2 .*40 hex digits/);
      expect(check.addressErrors[1]).toMatch(/^Address 3 .*checksum/);
    }
    expect(checkPolicyParams('address_allowlist', { amount: '', addresses: ' ' })).toEqual({
      ok: false,
      addressErrors: ['Enter at least one address.'],
    });
    expect(checkPolicyParams('address_allowlist', { amount: '', addresses: `${A}\n${B}` })).toEqual({
      ok: true,
      params: { addresses: [A, B] },
    });
  });
});
