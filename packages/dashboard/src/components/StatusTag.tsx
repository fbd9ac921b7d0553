/** A coloured word for a status (always text too, never colour alone). `label` replaces the status's own word. */
export function StatusTag({ status, label }: { status: string; label?: string }) {
  return (
    <span className={`tag tag-${status.replace(/[^a-z_]/g, '')}`}>{label ?? status.replace(/_/g, ' ')}</span>
  );
}
