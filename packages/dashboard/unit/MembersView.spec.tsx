// @vitest-environment jsdom

import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MembersView } from '../src/views/MembersView.tsx';
import { ORIGIN, testServices } from './support/services.tsx';

const OWNER = { id: 'u', email: 'a@b.co', role: 'owner', joinedAt: '2026-01-01T00:00:00Z', mfa: false };
const ADMIN = { id: 'm2', email: 'admin@b.co', role: 'admin', joinedAt: '2026-01-02T00:00:00Z', mfa: false };
const MADE_KEY = { id: 'key_1', label: 'ci', walletId: 'wal_1' };
const MADE_APP = { id: 'key_2', clientName: 'Claude', walletId: 'wal_1' };

function mount() {
  const requests: string[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), ORIGIN);
    const method = init?.method ?? 'GET';
    requests.push(`${method} ${url.pathname}${url.search}`);
    const keep = url.searchParams.get('keepKeys') === 'true';
    const data =
      method === 'DELETE'
        ? {
            id: ADMIN.id,
            deleted: true,
            removed: true,
            revokedKeys: keep ? [] : [MADE_KEY],
            revokedOAuth: keep ? [] : [MADE_APP],
            keptKeys: keep ? [MADE_KEY] : [],
            keptOAuth: keep ? [MADE_APP] : [],
          }
        : url.pathname.endsWith('/members')
          ? { items: [OWNER, ADMIN] }
          : url.pathname.endsWith('/invitations')
            ? { items: [] }
            : { id: 'org_1', requireMfa: false, createdAt: '2026-01-01T00:00:00Z', role: 'owner' };
    return new Response(JSON.stringify({ success: true, data }), { status: 200 });
  });
  const { wrap } = testServices(fetch);
  render(wrap(<MembersView />));
  return requests;
}

async function openRemoval() {
  const row = (await screen.findAllByTestId('member-item')).find((r) => r.dataset.email === ADMIN.email);
  fireEvent.click(within(row!).getByRole('button', { name: /^Remove\s*admin@b\.co$/ }));
  return screen.findByRole('dialog', { name: `Remove ${ADMIN.email}?` });
}

afterEach(cleanup);

describe('removing a member', () => {
  it('says their keys and connected apps end too, and ends them unless kept', async () => {
    const requests = mount();
    const dialog = await openRemoval();
    expect(dialog.textContent).toContain('The API keys they created or rotated and the apps they connected');
    const keep = within(dialog).getByTestId('keep-member-keys') as HTMLInputElement;
    expect(keep.checked).toBe(false);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Remove member' }));
    await screen.findByText(
      'admin@b.co is removed from the organization. Revoked: 1 API key (ci) and 1 connected app (Claude).',
    );
    expect(requests).toContain('DELETE /api/v1/members/m2?keepKeys=false');
  });

  it('keeps them working when the owner chooses so', async () => {
    const requests = mount();
    const dialog = await openRemoval();
    fireEvent.click(within(dialog).getByTestId('keep-member-keys'));
    fireEvent.click(within(dialog).getByRole('button', { name: 'Remove member' }));
    await screen.findByText(
      'admin@b.co is removed from the organization. Still working, as you chose: 1 API key (ci) and 1 connected app (Claude).',
    );
    expect(requests).toContain('DELETE /api/v1/members/m2?keepKeys=true');
  });
});
