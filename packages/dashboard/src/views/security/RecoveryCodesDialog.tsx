// The recovery codes that come with the authenticator app, shown once.
import { useId, useState } from 'react';
import { useApp } from '../../app-context.ts';
import { CopyButton } from '../../components/CopyButton.tsx';
import { Dialog } from '../../components/Dialog.tsx';
import { recoveryCodesFileName, recoveryCodesText } from '../security.ts';

/** The recovery codes, once: copy or download them now. Closing the dialog forgets them. */
export function RecoveryCodesDialog({ codes, onClose }: { codes: string[]; onClose: () => void }) {
  const { session } = useApp();
  const warningId = useId();
  const [createdAt] = useState(() => new Date());
  const text = recoveryCodesText(codes, session.user.email, createdAt);
  const [downloaded, setDownloaded] = useState(false);

  function download() {
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = recoveryCodesFileName(createdAt);
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    setDownloaded(true);
  }

  return (
    <Dialog title="Save your recovery codes" onClose={onClose} describedBy={warningId} className="key-dialog">
      <p className="warning" id={warningId} data-testid="recovery-warning">
        <strong>These codes are shown only once: you will not see them again.</strong> Each one works once,
        instead of a code from your authenticator app, if you lose it. Keep them somewhere safe, away from
        this device.
      </p>
      <ol className="recovery-codes" data-testid="recovery-codes" aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <div className="actions">
        <CopyButton text={codes.join('\n')} label="Copy recovery codes" autoFocus />
        <button type="button" className="button secondary small" onClick={download}>
          Download (.txt)
        </button>
        <span className="copy-status" role="status">
          {downloaded ? 'Downloaded.' : ''}
        </span>
      </div>
      <div className="dialog-actions">
        <button type="button" className="button primary" onClick={onClose}>
          I have saved my recovery codes
        </button>
      </div>
    </Dialog>
  );
}
