/** A coloured word for a status (always text too, never colour alone). */
export function StatusTag({ status }: { status: string }) {
  return <span className={`tag tag-${status.replace(/[^a-z_]/g, '')}`}>{status.replace(/_/g, ' ')}</span>;
}
