// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Dialog } from '../src/components/Dialog.tsx';

afterEach(cleanup);

function Harness() {
  const [open, setOpen] = useState(false);
  return (
    <div id="root">
      <button type="button" onClick={() => setOpen(true)}>
        Open
      </button>
      {open && (
        <Dialog title="Confirm" onClose={() => setOpen(false)}>
          <button type="button" data-autofocus>
            First
          </button>
          <button type="button">Last</button>
        </Dialog>
      )}
    </div>
  );
}

describe('Dialog (native <dialog>)', () => {
  it('opens modal, focuses the marked element, closes on Escape (cancel) and gives focus back', () => {
    // jsdom has no showModal: stand in for the browser, which makes the page behind inert and traps focus.
    const showModal = vi.fn(function (this: HTMLDialogElement) {
      this.setAttribute('open', '');
    });
    const close = vi.fn(function (this: HTMLDialogElement) {
      this.removeAttribute('open');
    });
    HTMLDialogElement.prototype.showModal = showModal;
    HTMLDialogElement.prototype.close = close;
    render(<Harness />);
    const opener = screen.getByRole('button', { name: 'Open' });
    opener.focus();
    fireEvent.click(opener);
    const dialog = screen.getByRole('dialog', { name: 'Confirm' });
    expect(dialog.tagName).toBe('DIALOG');
    expect(showModal).toHaveBeenCalledTimes(1);
    expect(dialog.hasAttribute('open')).toBe(true);
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'First' }));

    // Escape fires "cancel": the owner closes it (and the browser's own close is prevented).
    const cancel = new Event('cancel', { cancelable: true });
    act(() => {
      dialog.dispatchEvent(cancel);
    });
    expect(cancel.defaultPrevented).toBe(true);
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(close).toHaveBeenCalledTimes(1);
    expect(document.activeElement).toBe(opener);
  });

  it('still opens where showModal is missing', () => {
    // biome-ignore lint/suspicious/noExplicitAny: removing the method to imitate an older DOM
    delete (HTMLDialogElement.prototype as any).showModal;
    render(<Harness />);
    fireEvent.click(screen.getByRole('button', { name: 'Open' }));
    expect(screen.getByRole('dialog', { name: 'Confirm' }).hasAttribute('open')).toBe(true);
  });
});
