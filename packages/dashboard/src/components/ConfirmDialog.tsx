import { type ReactNode, useId } from 'react';
import { useAction } from '../queries.ts';
import { Dialog } from './Dialog.tsx';
import { DialogActions } from './DialogActions.tsx';

interface ConfirmDialogProps {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}

/** "Are you sure?" with the server's answer shown inside when the action fails. Closes itself on success. */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  danger,
  onConfirm,
  onClose,
}: ConfirmDialogProps) {
  const action = useAction();
  const bodyId = useId();
  async function confirm() {
    const error = await action.run(onConfirm);
    if (error === null) onClose();
  }
  return (
    <Dialog title={title} onClose={onClose} describedBy={bodyId}>
      <div id={bodyId} className="dialog-body">
        {children}
      </div>
      <DialogActions
        action={action}
        label={confirmLabel}
        busyLabel="Working…"
        danger={danger}
        focusCancel
        onAct={confirm}
        onCancel={onClose}
      />
    </Dialog>
  );
}
