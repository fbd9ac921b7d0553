import { shortReceipt } from '../format.ts';
import { CopyButton } from './CopyButton.tsx';

/**
 * A paid request's receipt as the seller sent it (often a long base64 string): shortened and collapsed, the
 * whole of it on demand, and copyable. It is the seller's text, shown as text only.
 */
export function Receipt({ receipt }: { receipt: string }) {
  const short = shortReceipt(receipt);
  const shortened = short !== receipt.trim();
  return (
    <div className="receipt" data-testid="tx-receipt">
      {shortened ? (
        <details className="receipt-details">
          <summary>
            <code className="hash" title={receipt}>
              {short}
            </code>
            <span className="visually-hidden"> (show the whole receipt)</span>
          </summary>
          <code className="receipt-full" data-testid="tx-receipt-full">
            {receipt}
          </code>
        </details>
      ) : (
        <code className="hash">{receipt}</code>
      )}
      <CopyButton text={receipt} label="Copy the seller’s receipt" />
    </div>
  );
}
