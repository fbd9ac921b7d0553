/** How full something is (a cap used), as the native <meter>: its value in words for assistive technology. */
export function Meter({
  percent,
  label,
  valueText,
  small,
}: {
  percent: number;
  label: string;
  valueText: string;
  small?: boolean;
}) {
  return (
    <meter
      className={`meter${small ? ' small' : ''}`}
      min={0}
      max={100}
      low={80}
      high={99.9}
      optimum={0}
      value={percent}
      aria-label={label}
      aria-valuetext={valueText}
    >
      {valueText}
    </meter>
  );
}
