// A secret the server shows once (an API key, a webhook signing secret): a dialog with the warning, the value to
// copy, what it is for, and a button that says it is stored. Closing forgets it.
import { type ReactNode, useId } from 'react';
import { CopyButton } from './CopyButton.tsx';
import { Dialog } from './Dialog.tsx';

export interface ShownOnceProps {
  title: string;
  /** Why it must be copied now, shown as the dialog's description. */
  warning: ReactNode;
  warningTestId: string;
  label: ReactNode;
  value: string;
  valueTestId: string;
  copyLabel: string;
  doneLabel: string;
  onClose: () => void;
  /** What the secret belongs to (a definition list, a note), under the value. */
  children?: ReactNode;
}

export function ShownOnce(props: ShownOnceProps) {
  const warningId = useId();
  const inputId = useId();
  return (
    <Dialog title={props.title} onClose={props.onClose} describedBy={warningId} className="key-dialog">
      <p className="warning" id={warningId} data-testid={props.warningTestId}>
        {props.warning}
      </p>
      <div className="field">
        <label htmlFor={inputId}>{props.label}</label>
        <div className="key-value">
          <input
            id={inputId}
            className="secret"
            readOnly
            value={props.value}
            data-testid={props.valueTestId}
            onFocus={(event) => event.target.select()}
            spellCheck={false}
            autoComplete="off"
          />
          <CopyButton text={props.value} label={props.copyLabel} autoFocus />
        </div>
      </div>
      {props.children}
      <div className="dialog-actions">
        <button type="button" className="button primary" onClick={props.onClose}>
          {props.doneLabel}
        </button>
      </div>
    </Dialog>
  );
}
