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
    expect(panel.textContent).toMatch(/OAuth.*not available yet/);
    expect(within(panel).getByRole('link', { name: 'API keys' }).getAttribute('href')).toContain('wal_agent');
  });
});
