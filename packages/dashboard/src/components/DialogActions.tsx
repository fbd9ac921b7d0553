// The foot of a dialog that acts: the server's refusal if the action failed, Cancel, and the action's button
// (busy while it runs). One piece for the confirmations, the rejection of a payment and a key's rotation.

import type { useAction } from '../queries.ts';
import { ErrorMessage } from './ErrorMessage.tsx';

export function DialogActions(props: {
  action: ReturnType<typeof useAction>;
  label: string;
  busyLabel: string;
  danger?: boolean;
  /** Cancel takes the focus when the dialog opens (nothing else in it asks for it). */
  focusCancel?: boolean;
  onAct: () => void;
  onCancel: () => void;
}) {
  const { action } = props;
  return (
    <>
      <ErrorMessage error={action.error} />
      <div className="dialog-actions">
        <button
          type="button"
          className="button secondary"
          onClick={props.onCancel}
          data-autofocus={props.focusCancel === true ? true : undefined}
        >
          Cancel
        </button>
        <button
          type="button"
          className={`button ${props.danger === true ? 'danger' : 'primary'}`}
          onClick={props.onAct}
          disabled={action.busy}
        >
          {action.busy ? props.busyLabel : props.label}
        </button>
      </div>
    </>
  );
}
