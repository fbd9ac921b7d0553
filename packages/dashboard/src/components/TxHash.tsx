import { useApp } from '../app-context.ts';
import { explorerTxUrl, shortHash } from '../explorer.ts';

/**
 * A transaction hash, shortened. On the evm rail with an explorer configured it links there (new tab); the
 * full hash is in the title and, on the link, in its accessible name.
 */
export function TxHash({ hash }: { hash: string }) {
  const { chain } = useApp();
  const url = explorerTxUrl(chain?.explorerUrl, hash);
  const text = <code className="hash">{shortHash(hash)}</code>;
  if (url === null) {
    return (
      <span className="tx-hash" title={hash} data-testid="tx-hash">
        {text}
      </span>
    );
  }
  return (
    <a
      className="tx-hash"
      href={url}
      target="_blank"
      rel="noopener noreferrer"
      title={hash}
      aria-label={`Transaction ${hash} on the block explorer (opens in a new tab)`}
      data-testid="tx-hash-link"
    >
      {text}
    </a>
  );
}
