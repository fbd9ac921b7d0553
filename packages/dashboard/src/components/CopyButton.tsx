import { useEffect, useState } from 'react';

async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard !== undefined) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Not allowed (insecure context, permission): fall back below.
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'offscreen';
  document.body.append(area);
  area.select();
  let copied = false;
  try {
    copied = document.execCommand('copy');
  } catch {
    copied = false;
  }
  area.remove();
  return copied;
}

/** Copies `text`; says so (or says to copy by hand) in a live region. */
export function CopyButton({ text, label, autoFocus }: { text: string; label: string; autoFocus?: boolean }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 2500);
    return () => clearTimeout(timer);
  }, [state]);
  return (
    <span className="copy">
      <button
        type="button"
        className="button secondary small"
        onClick={async () => setState((await copyText(text)) ? 'copied' : 'failed')}
        data-autofocus={autoFocus ? true : undefined}
        aria-label={label}
      >
        {state === 'copied' ? 'Copied' : 'Copy'}
      </button>
      <span className="copy-status" role="status">
        {state === 'copied'
          ? 'Copied to the clipboard.'
          : state === 'failed'
            ? 'Copy failed: select the text and copy it.'
            : ''}
      </span>
    </span>
  );
}
