// @vitest-environment jsdom

import type { AgentWallet } from '@agent-wallet/sdk';
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectPanel } from '../src/views/ConnectPanel.tsx';

const WALLET = {
  id: 'wal_agent',
  label: 'Research bot',
  address: `0x${'b'.repeat(40)}`,
} as unknown as AgentWallet;

afterEach(cleanup);

describe('ConnectPanel', () => {
  it('points every set-up at this origin’s /mcp, with a copy button each and the key as a placeholder', () => {
    render(<ConnectPanel wallet={WALLET} origin="https://wallet.example.com" />);
    const panel = screen.getByTestId('connect-panel');
    expect(screen.getByTestId('connect-url').textContent).toBe('https://wallet.example.com/mcp');
    for (const id of [
      'claude-desktop',
      'claude-code',
      'cursor',
      'vscode',
      'openai-agents',
      'ai-sdk',
      'langchain',
    ]) {
      const block = screen.getByTestId(`connect-${id}`);
      expect(within(block).getByRole('button', { name: /^Copy the .* set-up$/ })).toBeTruthy();
      expect(block.querySelector('pre')?.textContent ?? '').not.toBe('');
    }
    expect(panel.textContent).toContain('svc_live_…');
    expect(panel.textContent).not.toMatch(/svc_live_[0-9A-Za-z]/);
    for (const link of within(panel).getAllByRole('link', { name: 'API keys' })) {
      expect(link.getAttribute('href')).toContain('wal_agent');
    }
  });

  it('offers adding by URL (OAuth) first, with steps for each host and no key, then the key-based set-ups', () => {
    render(<ConnectPanel wallet={WALLET} origin="https://wallet.example.com" />);
    const headings = screen.getAllByRole('heading', { level: 3 }).map((h) => h.textContent);
    expect(headings).toEqual(['Add by URL (OAuth)', 'With an API key']);
    const oauth = screen.getByTestId('connect-oauth');
    for (const id of ['oauth-claude', 'oauth-chatgpt', 'oauth-claude-code', 'oauth-cursor', 'oauth-vscode']) {
      const block = within(oauth).getByTestId(`connect-${id}`);
      expect(block.querySelectorAll('ol li').length).toBeGreaterThan(1);
    }
    expect(within(oauth).getByTestId('connect-oauth-claude-code').textContent).toContain(
      'claude mcp add --transport http agent-wallet https://wallet.example.com/mcp',
    );
    within(oauth).getByRole('button', { name: 'Copy the Cursor OAuth set-up' });
    expect(oauth.textContent).not.toContain('svc_live_');
    expect(oauth.textContent).not.toContain('Authorization');
    // A public address: no warning about local addresses.
    expect(screen.queryByTestId('connect-local')).toBeNull();
  });

  it('warns that claude.ai and ChatGPT cannot reach a local address', () => {
    render(<ConnectPanel wallet={WALLET} origin="http://localhost:8787" />);
    expect(screen.getByTestId('connect-local').textContent).toMatch(
      /claude\.ai and ChatGPT .* cannot reach it/,
    );
  });
});
