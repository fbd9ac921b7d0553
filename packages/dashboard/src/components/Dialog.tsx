import { type ReactNode, type SyntheticEvent, useEffect, useId, useRef } from 'react';
import { createPortal } from 'react-dom';

interface DialogProps {
  title: string;
  onClose: () => void;
  children: ReactNode;
  /** Describes the dialog for assistive technology (id of an element inside). */
  describedBy?: string;
  className?: string;
}

/**
 * A modal dialog on the native <dialog>: showModal() makes the page behind inert and keeps focus inside,
 * Escape closes (its cancel event), and focus goes back to what opened it. The first element marked
 * data-autofocus (else the browser's choice, the first focusable one) gets focus.
 */
export function Dialog({ title, onClose, children, describedBy, className }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const dialog = ref.current;
    if (dialog === null) return;
    // Browsers without showModal (test DOMs) still get an open dialog.
    if (typeof dialog.showModal === 'function') dialog.showModal();
    else dialog.setAttribute('open', '');
    dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    return () => {
      if (typeof dialog.close === 'function' && dialog.open) dialog.close();
      // What opened the dialog may be gone (an approved payment leaves the list): fall back to the page.
      if (previous?.isConnected) previous.focus();
      else document.getElementById('main')?.focus();
    };
  }, []);

  function onCancel(event: SyntheticEvent<HTMLDialogElement>) {
    // Escape: the dialog closes through its owner, who unmounts it.
    event.preventDefault();
    onClose();
  }

  return createPortal(
    <dialog
      ref={ref}
      className={`dialog ${className ?? ''}`}
      aria-labelledby={titleId}
      aria-describedby={describedBy}
      onCancel={onCancel}
    >
      <h2 id={titleId} className="dialog-title">
        {title}
      </h2>
      {children}
    </dialog>,
    document.body,
  );
}
