// Spending per day over the last 30 days, stacked by what happened to it (recharts: SVG, no eval, no injected
// <style>: it fits the CSP). The totals beside it are exact (BigInt); the bars are whole micro-units.
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { type SpendChart as Chart, type DayRow, microsText, SPEND_SERIES } from '../activity.ts';
import { Loading } from '../components/Common.tsx';
import { formatAmount, formatUsdc, fromMicros } from '../money.ts';

/** One colour per stack (also named in the legend and the tooltip: never colour alone). */
export const SERIES_COLORS: Record<DayRowKey, string> = {
  completed: '#2563eb',
  waiting: '#d97706',
  rejected: '#9ca3af',
  failed: '#6b7280',
};
type DayRowKey = 'completed' | 'waiting' | 'rejected' | 'failed';

function axisAmount(micros: number): string {
  return formatAmount(microsText(micros), 0);
}

interface TooltipProps {
  active?: boolean;
  payload?: readonly { payload?: DayRow }[];
}

function DayTooltip({ active, payload }: TooltipProps) {
  const row = payload?.[0]?.payload;
  if (active !== true || row === undefined) return null;
  return (
    <div className="chart-tooltip">
      <p className="chart-tooltip-day">{row.label}</p>
      <ul>
        {SPEND_SERIES.filter((series) => row[series.key] > 0).map((series) => (
          <li key={series.key}>
            {series.label}: {formatUsdc(microsText(row[series.key]))}
          </li>
        ))}
        {SPEND_SERIES.every((series) => row[series.key] === 0) && <li>No spending</li>}
      </ul>
    </div>
  );
}

export function SpendChart({
  chart,
  loading,
  partial,
}: {
  chart: Chart;
  loading: boolean;
  partial: boolean;
}) {
  const paid = chart.totals.completed;
  return (
    <section className="card chart-card" aria-labelledby="spend-title" data-testid="spend-chart">
      <h2 id="spend-title">Spending, last 30 days</h2>
      {loading ? (
        <Loading />
      ) : (
        <>
          <ul className="chart-legend" aria-label="Totals over 30 days">
            {SPEND_SERIES.map((series) => (
              <li key={series.key} data-series={series.key}>
                <svg viewBox="0 0 10 10" className="swatch" aria-hidden="true">
                  <rect width="10" height="10" rx="2" fill={SERIES_COLORS[series.key]} />
                </svg>
                {series.label}{' '}
                <strong data-testid={`chart-total-${series.key}`}>
                  {formatUsdc(fromMicros(chart.totals[series.key]))}
                </strong>
              </li>
            ))}
          </ul>
          {chart.count === 0 ? (
            <p className="empty">No payments by the agent in the last 30 days.</p>
          ) : (
            <figure className="chart">
              <figcaption className="visually-hidden">
                Spending per day over the last 30 days: {formatUsdc(fromMicros(paid))} paid.
              </figcaption>
              <ResponsiveContainer width="100%" height={200}>
                <BarChart data={chart.rows} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
                  <CartesianGrid vertical={false} stroke="#e5e7eb" />
                  <XAxis dataKey="label" tickLine={false} minTickGap={24} fontSize={12} />
                  <YAxis tickFormatter={axisAmount} width={56} fontSize={12} allowDecimals={false} />
                  <Tooltip content={<DayTooltip />} cursor={{ fill: 'rgba(37, 99, 235, 0.08)' }} />
                  {SPEND_SERIES.map((series) => (
                    <Bar
                      key={series.key}
                      dataKey={series.key}
                      name={series.label}
                      stackId="spend"
                      fill={SERIES_COLORS[series.key]}
                      isAnimationActive={false}
                    />
                  ))}
                </BarChart>
              </ResponsiveContainer>
            </figure>
          )}
          {partial && (
            <p className="hint">
              Based on the newest transactions loaded; load older ones below for the rest.
            </p>
          )}
        </>
      )}
    </section>
  );
}
