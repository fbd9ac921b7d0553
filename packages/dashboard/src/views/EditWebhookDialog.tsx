// Editing a webhook endpoint in a dialog: its URL, events and description, checked like the "Add an endpoint"
// form. Only what changed is sent (PATCH /webhooks/:id); the signing secret stays as it is and is not shown.

import type { WebhookEndpoint } from '@agent-wallet/sdk';
import { type FormEvent, useId } from 'react';
import { useApp } from '../app-context.ts';
import { Dialog } from '../components/Dialog.tsx';
import { useWebhookForm, WebhookFields } from './WebhookFields.tsx';
import { draftOf, webhookChange } from './webhookForm.ts';

export function EditWebhookDialog({
  endpoint,
  onClose,
  onSaved,
}: {
  endpoint: WebhookEndpoint;
  onClose: () => void;
  onSaved: (updated: WebhookEndpoint) => void;
}) {
  const { sdk } = useApp();
  const form = useWebhookForm(draftOf(endpoint));
  const noteId = useId();

  async function onSubmit(event: FormEvent) {
    const sent = await form.submit(event, async (input) => {
      const change = webhookChange(endpoint, input);
      // Nothing changed: nothing to send.
      if (Object.keys(change).length > 0) onSaved(await sdk.webhooks.update(endpoint.id, change));
    });
    if (sent) onClose();
  }

  return (
    <Dialog title="Edit webhook endpoint" onClose={onClose} describedBy={noteId} className="webhook-dialog">
      <form onSubmit={onSubmit} noValidate aria-label="Edit webhook endpoint">
        <p className="hint" id={noteId}>
          The signing secret stays the same and is not shown again.
        </p>
        <WebhookFields form={form} />
        <div className="dialog-actions">
          <button type="button" className="button secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button primary" disabled={form.action.busy}>
            {form.action.busy ? 'Saving…' : 'Save changes'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
