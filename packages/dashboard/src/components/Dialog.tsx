import { type KeyboardEvent, type ReactNode, useEffect, useId, useRef } from 'react';
import { createPortal } from 'react-dom';

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

let openDialogs = 0;

function focusables(root: HTMLElement): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(FOCUSABLE));
}

interface DialogProps {
  title: string;
  onClose: () => void;
  children: ReactNode;
  /** Describes the dialog for assistive technology (id of an element inside). */
  describedBy?: string;
  className?: string;
}

/**
 * A modal dialog: the page behind is inert, Tab cycles inside, Escape closes, and focus goes back to what
 * opened it. The first element marked data-autofocus (else the first focusable one) gets focus.
 */
export function Dialog({ title, onClose, children, describedBy, className }: DialogProps) {
  const ref = useRef<HTMLDivElement>(null);
  const titleId = useId();
  useEffect(() => {
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const root = document.getElementById('root');
    openDialogs += 1;
    root?.setAttribute('inert', '');
    const node = ref.current;
    if (node !== null) {
      const target = node.querySelector<HTMLElement>('[data-autofocus]') ?? focusables(node)[0] ?? node;
      target.focus();
    }
    return () => {
      openDialogs -= 1;
      if (openDialogs === 0) root?.removeAttribute('inert');
      // What opened the dialog may be gone (an approved payment leaves the list): fall back to the page.
      if (previous?.isConnected) previous.focus();
      else document.getElementById('main')?.focus();
    };
  }, []);

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    if (event.key === 'Escape') {
      event.stopPropagation();
      onClose();
      return;
    }
    if (event.key !== 'Tab' || ref.current === null) return;
    const items = focusables(ref.current);
    const first = items[0];
    const last = items[items.length - 1];
    if (first === undefined || last === undefined) {
      event.preventDefault();
      return;
    }
    if (event.shiftKey && (document.activeElement === first || document.activeElement === ref.current)) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  }

  return createPortal(
    <div className="dialog-backdrop">
      <div
        ref={ref}
        className={`dialog ${className ?? ''}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        aria-describedby={describedBy}
        tabIndex={-1}
        onKeyDown={onKeyDown}
      >
        <h2 id={titleId} className="dialog-title">
          {title}
        </h2>
        {children}
      </div>
    </div>,
    document.body,
  );
}
